"""nvFuser regions on the fast path (``FusionRegion``): the FusionDefinition picked by layout (on the CPU with fake
definitions; on CUDA with nvFuser), the hit that calls a single region's executor itself, and what must stay as
Thunder's wrapper has it.
"""

from __future__ import annotations

import copy
import sys
import types

import expecttest
import hypothesis
import pytest
import torch
from hypothesis import strategies as st

import thunder
import thunder.fastpath
from thunder.tests.framework import requiresCUDA, requiresNVFuser

from fastpath_harness import (
    RegionSpy,
    assert_bitwise,
    autograd_facts,
    fusion_regions,
    hit_source,
    hits_misses,
    newest_hit,
    run_both,
    took_fast_path,
)


class FakeFusion:
    """Stands for an nvFuser FusionDefinition: records which definition ran and how it was called."""

    def __init__(self, key, log):
        self.key, self.log, self._selected_device = key, log, None
        self.keywords = []  # (how, the keyword arguments) of each call
        self.fec = types.SimpleNamespace(execute=lambda args, **kw: self.run("fec", args, kw))

    def _get_device_index(self, device):
        return None

    def execute(self, args, **kwargs):
        return self.run("fd", args, kwargs)

    def run(self, how, args, kwargs):
        self.log.append((how, self.key))
        self.keywords.append((how, kwargs))
        return self.key


class FakeWrapper:
    """Stands for Thunder's FusionDefinitionWrapper: one definition per input descriptor."""

    name, store_inputs, save_fake_inputs = "nvFusion0", False, False
    enable_options = disable_options = last_used = last_inputs = None

    def __init__(self, use_cache=True):
        self.use_cache, self.log, self.built = use_cache, [], {}

    def to_descriptors(self, args):
        self.log.append(("descriptors",))
        return tuple((type(a), a.stride()) if isinstance(a, torch.Tensor) else type(a) for a in args)

    def get_fd(self, descriptors):
        return self.built.setdefault(descriptors, FakeFusion(descriptors, self.log))

    def __call__(self, *args):
        self.log.append(("upstream",))
        return "upstream"


def test_fusion_region_picks_the_definition_by_layout_without_a_gpu():
    from thunder.fastpath.nvfuser import FusionRegion

    base = torch.randn(4, 6)
    strided, contiguous, param = base[:, ::2], base[:, ::2].contiguous(), torch.nn.Parameter(torch.randn(4, 3))
    for make_args, tensor_indices in [
        (lambda a: (a,), (0,)),
        (lambda a: (2.0, a, param), (1, 2)),  # a scalar, then a tensor and a parameter
        (lambda a: (a, 3), (0,)),
        (lambda a: (5,), ()),  # no tensor at all (a slice extent, say)
    ]:
        up = FakeWrapper()
        region = FusionRegion(up, tensor_indices, len(make_args(strided)))
        first = previous = None
        for a in [strided, strided, contiguous, contiguous, strided, contiguous, param.detach()[:, :3]]:
            args = make_args(a)
            layout = [(type(args[i]), args[i].stride()) for i in tensor_indices]
            up.log.clear()
            out = region(*args)
            want = up.built[up.to_descriptors(args)]  # the definition made for these inputs
            assert out == want.key and region.last_used is want and up.last_used is want
            if layout == previous or layout == first:
                # Unchanged layout, or back to the first one: the executor directly, no descriptors
                assert up.log[:1] == [("fec", want.key)]
            else:  # another layout: the descriptor cache, then the definition's execute
                assert up.log[:2] == [("descriptors",), ("fd", want.key)]
            first, previous = first or layout, layout
    # One tensor in two places: checked once, and the other place by identity. Two tensors of that
    # layout, or one tensor in the other two places, are another layout: the descriptors, then the right definition.
    up = FakeWrapper()
    region = FusionRegion(up, (0, 1, 2), 3)
    other = torch.randn(4, 6)[:, ::2]  # the layout of strided, another tensor
    calls = [
        ((strided, strided, param), False),
        ((strided, strided, param), True),
        ((contiguous, contiguous, param), False),
        ((contiguous, contiguous, param), True),
        ((strided, strided, param), True),  # back to the first layout
        ((strided, other, param), False),
        ((strided, other, param), True),
        ((strided, strided, param), True),
        ((param, strided, param), False),
        ((param, strided, param), True),
    ]
    for args, direct in calls:
        up.log.clear()
        out = region(*args)
        log, want = list(up.log), up.built[up.to_descriptors(args)]
        assert out == want.key and region.last_used is want
        assert log[:1] == [("fec", want.key)] if direct else log[:2] == [("descriptors",), ("fd", want.key)]
    # Other tensor subclasses and nv_skip_cache keep Thunder's behaviour.
    up = FakeWrapper()
    region = FusionRegion(up, (0,), 1)
    sub = torch.Tensor._make_subclass(type("MyTensor", (torch.Tensor,), {}), strided)
    assert region(sub) == "upstream" and region.same_layout is None
    up = FakeWrapper(use_cache=False)
    region = FusionRegion(up, (0,), 1)
    first = region(strided)
    up.log.clear()
    assert region(contiguous) == first and up.log == [("fec", first)]


def test_fusion_region_passes_nvfuser_options_on_every_call_without_a_gpu():
    # nv_enable_options / nv_disable_options reach nvFuser as keyword arguments of each execute call: fd.execute's on
    # a new layout, the executor's bound once per layout on the others.
    from thunder.fastpath.nvfuser import FusionRegion

    up = FakeWrapper()
    up.enable_options, up.disable_options = ["fuse_matmul"], []
    region = FusionRegion(up, (0,), 1)
    layouts = layouts_4x6()
    contiguous, transposed = layouts["contiguous"], layouts["transposed"]
    for a in [contiguous, contiguous, transposed, transposed, contiguous, contiguous]:
        region(a)
    calls = [call for fd in up.built.values() for call in fd.keywords]
    assert sorted(how for how, _ in calls) == ["fd", "fd", "fec", "fec", "fec", "fec"]
    for how, kwargs in calls:
        options = (kwargs.get("_enable_options"), kwargs.get("_disable_options"))
        assert options == (["fuse_matmul"], []), how


def layouts_4x6(device="cpu"):
    """One 4×6 float tensor's values in different layouts (Thunder's cache does not key on strides)."""
    values = torch.randn(4, 6, generator=torch.Generator().manual_seed(1)).to(device)
    transposed = values.t().contiguous().t()
    column_sliced = torch.zeros(4, 12, device=device)
    column_sliced[:, ::2] = values
    row_sliced = torch.zeros(8, 6, device=device)
    row_sliced[::2] = values
    offset = torch.zeros(30, device=device)
    offset[5:29] = values.flatten()
    return {
        "contiguous": values,
        "transposed": transposed,
        "column_sliced": column_sliced[:, ::2],
        "row_sliced": row_sliced[::2],
        "storage_offset": offset[5:29].view(4, 6),
        "broadcast": values[:1].expand(4, 6),  # stride 0, other values
    }


LAYOUTS = list(layouts_4x6())


@hypothesis.settings(deadline=None, max_examples=40, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.lists(st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS + ["same"])), min_size=1, max_size=10)
)
def test_fusion_region_generated_layout_sequences_without_a_gpu(sequence):
    # Whatever the order of layouts, the region runs the definition that Thunder's descriptor cache gives for
    # the call's inputs ("same": the first tensor passed twice).
    from thunder.fastpath.nvfuser import FusionRegion

    layouts = layouts_4x6()
    up = FakeWrapper()
    region = FusionRegion(up, (0, 2), 3)
    for first, second in sequence:
        a = layouts[first]
        args = (a, 2.0, a if second == "same" else layouts[second])
        assert region(*args) == up.built[up.to_descriptors(args)].key


def nvfuser_pair(fn, **options):
    up = thunder.jit(fn, fastpath=False, executors=["nvfuser"], **options)
    fast = thunder.jit(fn, fastpath=True, executors=["nvfuser"], **options)
    return up, fast


class Issue1657(torch.nn.Module):
    def forward(self, x):
        y = torch.sin(x)
        return (y, y.sum() > 0)


def issue1657_input(device="cuda"):
    """The input of Lightning-AI/lightning-thunder#1657: a 400×400 int64 view with strides (800, 2)."""
    return torch.testing.make_tensor((319999,), dtype=torch.int64, device=device, low=3, high=9).as_strided(
        (400, 400), (800, 2)
    )


@requiresCUDA
@requiresNVFuser
def test_nvfuser_issue1657_graph_and_region_type():
    from thunder.fastpath.nvfuser import FusionRegion

    x = issue1657_input()
    up, fast = nvfuser_pair(Issue1657())
    for _ in range(3):
        out = run_both(up, fast, x)
    torch.testing.assert_close(out[0], torch.sin(x))
    assert [type(r) for r in fusion_regions(fast)] == [FusionRegion]
    assert all(type(r) is not FusionRegion for r in fusion_regions(up))


@requiresCUDA
@requiresNVFuser
def test_nvfuser_single_region_hit_calls_the_executor_itself():
    # The #1657 graph under grad mode, its input not requiring grad: a hit calls the region's executor from the hit
    # function, in grad mode as it is; a new layout goes through the computation (switch, then the region's own
    # preparation), after which hits call the executor again. Outputs and their autograd facts as Thunder's.
    x = issue1657_input()
    contiguous = x.contiguous()
    up, fast = nvfuser_pair(Issue1657())
    run_both(up, fast, x)
    spy = RegionSpy(fast)
    assert spy.hit.region_call is not None and spy.hit.grad_free_region
    expected = []  # for each call so far: whether it went through the computation
    for a, via_computation in [(x, False), (x, False), (contiguous, True), (contiguous, False), (x, True), (x, False)]:
        spy.watch_executor()
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        out_fast, out_up = fast(a), up(a)
        assert_bitwise(out_up, out_fast)
        assert autograd_facts(out_fast) == autograd_facts(out_up)
        assert hits_misses(up) == hits_misses(fast) and took_fast_path(fast)
        expected.append(via_computation)
        assert spy.computation_calls == sum(expected)
        assert spy.grad_modes == [True] * (len(expected) - sum(expected))
    assert torch.is_grad_enabled()


class TestGeneratedRegionHit(expecttest.TestCase):
    # The pinned hit function of a single-region computation (the #1657 graph under grad mode).
    @requiresCUDA
    @requiresNVFuser
    def test_issue1657_hit(self):
        x = torch.testing.make_tensor((400, 400), dtype=torch.int64, device="cuda", low=3, high=9)
        fast = thunder.jit(Issue1657(), fastpath=True, executors=["nvfuser"])
        fast(x)
        self.assertExpectedInline(
            hit_source(fast),
            """\
def hit(args, kwargs):
    try:
        if not (len(args) == 1): return __MISS
        if not (len(kwargs) == 0): return __MISS
        x = args[0]
        if __is_grad_enabled() is not True: return __MISS
        if __is_any_autocast_enabled():
            if __is_autocast_enabled('cuda') or __is_autocast_enabled('cpu'): return __MISS
            return __DECLINE
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if x.is_nested: return __MISS
        __same_layout = __observed_layout.check(x)
        if not (__same_layout or __tensor_guards.check(x)):
            __verdict = __check_tensors_slowly((x,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    __publication.served += 1
    if __publication.entry is not __entry: __publish(__entry)
    __prepared = __region.prepared
    if __prepared is not None and __prepared.outputs_are_new and (__same_layout and __prepared is __entry_layout or __prepared.layout.check(x)):
        __out = __prepared.execute((x, ))
        return (__out[0], __out[1], )
    __set_grad_enabled(False)
    try:
        return tuple(__computation(x, ))
    finally:
        __set_grad_enabled(True)
""",
        )


class CountingLayoutCheck:
    """Stands in for a region's layout check (a TensorGuards) and counts its calls."""

    def __init__(self, layout):
        self.layout, self.calls = layout, 0

    def check(self, *tensors):
        self.calls += 1
        return self.layout.check(*tensors)


@requiresCUDA
@requiresNVFuser
def test_nvfuser_hit_skips_the_region_layout_check_only_on_the_entry_layout():
    # The guard checks strides too (`__same_layout`): while they are those of the call that made the entry and the
    # region still holds the layout it prepared for that call, the hit skips the region's check. Another layout is
    # checked by the region (and prepared through the computation); back on the first one, the region takes up its
    # first layout again (the same tuple), and the hit skips the check again. Outputs, hits and misses as Thunder's.
    x = issue1657_input()
    contiguous = x.contiguous()
    up, fast = nvfuser_pair(Issue1657())
    run_both(up, fast, x)
    hit = newest_hit(fast)
    region = hit.region_call.region
    assert hit.entry_layout is region.prepared is not None
    assert region.first_prepared is region.prepared
    # Count the checks of the entry's layout (the hit's and the region's): the same tuple in the region and the hit.
    counting = CountingLayoutCheck(region.prepared.layout)
    spied = region.prepared._replace(layout=counting)
    region.prepared = region.first_prepared = hit.call.__globals__["__entry_layout"] = spied
    spy = RegionSpy(fast)
    # (input, checks of the entry's layout so far, computation calls so far): the new layout's first call is checked
    # three times (by the hit, by the region's call and by its preparation, which tries the first layout first); back
    # on x, once more, by the region's preparation, which takes up the first layout again.
    steps = [(x, 0, 0), (x, 0, 0), (contiguous, 3, 1), (contiguous, 3, 1), (x, 4, 2), (x, 4, 2)]
    for a, checks, via_computation in steps:
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        out = run_both(up, fast, a)
        torch.testing.assert_close(out[0], torch.sin(a))
        assert took_fast_path(fast)
        assert (counting.calls, spy.computation_calls) == (checks, via_computation)
    assert region.prepared is spied  # the first layout again: the hit knows it


@requiresCUDA
@requiresNVFuser
def test_nvfuser_region_outputs_that_are_views_keep_the_grad_switch():
    # A view records the grad mode it was made in (its creation meta): an output that nvFuser returns as a view
    # must be made with grad off, as Thunder makes it. The region tells per layout whether its outputs are views.
    candidates = [
        lambda a: (a.sin(), a.t()),
        lambda a: (a.cos(), a.reshape(-1)),
        lambda a: (a * 2).unsqueeze(0).expand(3, 4, 6),
        lambda a: (a.exp(), a[:, 1:]),
    ]
    exercised = 0
    for fn in candidates:
        up, fast = nvfuser_pair(fn)
        a = torch.randn(4, 6, device="cuda")
        run_both(up, fast, a)
        hit = newest_hit(fast)
        spy = RegionSpy(fast) if hit.region_call is not None else None
        for _ in range(3):
            if spy is not None:
                spy.watch_executor()
            took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
            out_fast, out_up = fast(a), up(a)
            assert_bitwise(out_up, out_fast)
            assert autograd_facts(out_fast) == autograd_facts(out_up)
            assert hits_misses(up) == hits_misses(fast) and took_fast_path(fast)
        views = any(view for _, _, view, _ in autograd_facts(out_fast))
        if spy is not None and views:
            exercised += 1
            assert hit.region_call.region.prepared.outputs_are_new is False
            assert spy.grad_modes == [False] * 3 and spy.computation_calls == 3
    assert exercised, "no candidate made a single-region computation with a view output: this test proves nothing"


@requiresCUDA
@requiresNVFuser
@pytest.mark.parametrize("grad", [False, True])
def test_nvfuser_module_parameters_take_the_region_fast_path(grad):
    # Parameters are nn.Parameter, not torch.Tensor: the region must still call the executor itself.
    torch.manual_seed(0)
    lin = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU()).cuda()
    up = thunder.jit(copy.deepcopy(lin), fastpath=False, executors=["nvfuser"])
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True, executors=["nvfuser"])
    x = torch.randn(4, 8, device="cuda")
    with torch.set_grad_enabled(grad):
        for _ in range(3):
            run_both(up, fast, x)
    regions = fusion_regions(fast)
    assert regions and all(r.same_layout is not None for r in regions), "a region fell back to upstream's wrapper"


@requiresCUDA
@requiresNVFuser
def test_nvfuser_stride_switch():
    f = lambda a, b: (a * 2 + b).exp()
    up, fast = nvfuser_pair(f)
    base = torch.randn(8, 16, device="cuda")
    strided = base[:, ::2]
    contiguous = strided.contiguous()
    transposed = torch.randn(8, 8, device="cuda").t()
    b = torch.randn(8, 8, device="cuda")
    for a in [strided, contiguous, strided, transposed, contiguous, transposed, strided]:
        out = run_both(up, fast, a, b)
        torch.testing.assert_close(out, f(a, b))
    assert thunder.cache_misses(fast) == 1  # strides never recompile: the region picks the definition


@requiresCUDA
@requiresNVFuser
def test_nvfuser_region_gets_one_tensor_in_two_places():
    # f(x, x): the region of the entry made for it gets one tensor in two input places. Its layout check takes the
    # tensor once and the other place by identity, instead of computing the descriptors on every call.
    from thunder.fastpath.nvfuser import FusionRegion, _LayoutWithRepeats

    f = lambda a, b: (a * 2 + b).exp()
    up, fast = nvfuser_pair(f)
    x, y = torch.randn(8, 8, device="cuda"), torch.randn(8, 8, device="cuda")
    xt = torch.randn(8, 8, device="cuda").t()
    for a, b in [(x, x), (x, x), (x, y), (x, x), (xt, xt), (xt, xt), (x, x)]:
        out = run_both(up, fast, a, b)
        torch.testing.assert_close(out, f(a, b))
    entries = thunder.compile_stats(fast).interpreter_cache
    regions = [r for e in entries for r in e.computation_traces[-1].python_ctx().values() if type(r) is FusionRegion]
    repeated = [r for r in regions if r.prepared is not None and type(r.prepared.layout) is _LayoutWithRepeats]
    assert len(repeated) == 1
    region = repeated[0]
    descriptors = []
    region.upstream.to_descriptors = lambda args, _to=region.upstream.to_descriptors: descriptors.append(1) or _to(args)
    for a, b in [(x, x), (x, x), (xt, xt), (xt, xt), (x, x)]:
        run_both(up, fast, a, b)
    # Descriptors once, for the layout that is neither the last one nor the first one: (xt, xt) after (x, x)
    assert len(descriptors) == 1


def sin_mul_add_sum(a, b):
    return (a.sin() * b + a).sum(0)


_layout_pair = {}  # one upstream/fast pair for all generated examples: their regions see every layout switch


@requiresCUDA
@requiresNVFuser
@hypothesis.settings(deadline=None, max_examples=12, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.lists(
        st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(["contiguous", "transposed", "same"])),
        min_size=1,
        max_size=6,
    )
)
def test_nvfuser_generated_layout_sequences(sequence):
    if not _layout_pair:
        _layout_pair["layouts"] = layouts_4x6("cuda")
        _layout_pair["up"], _layout_pair["fast"] = nvfuser_pair(sin_mul_add_sum)
    layouts, up, fast = _layout_pair["layouts"], _layout_pair["up"], _layout_pair["fast"]
    for first, second in sequence:
        a = layouts[first]
        b = a if second == "same" else layouts[second]
        out = run_both(up, fast, a, b)
        torch.testing.assert_close(out, sin_mul_add_sum(a, b))
    assert all(type(r).__name__ == "FusionRegion" for r in fusion_regions(fast))


@requiresCUDA
@requiresNVFuser
@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.bfloat16])
def test_nvfuser_dtypes_and_broadcast(dtype):
    f = lambda a, b: a * b + a
    up, fast = nvfuser_pair(f)
    a = torch.testing.make_tensor((1, 5), dtype=dtype, device="cuda", low=-3, high=3)
    b = torch.testing.make_tensor((4, 5), dtype=dtype, device="cuda", low=-3, high=3)
    for _ in range(3):
        out = run_both(up, fast, a, b)
    # nvFuser computes low-precision floats in float32 and rounds once
    ref = f(a, b) if dtype is torch.int64 else f(a.float(), b.float()).to(dtype)
    torch.testing.assert_close(out, ref)


@requiresCUDA
@requiresNVFuser
def test_nvfuser_scalar_inputs():
    f = lambda a, s: a * s + 1
    up, fast = nvfuser_pair(f, cache="symbolic values")
    a = torch.randn(6, device="cuda")
    for s in [2.0, 3.0, 3.0, -1.5]:
        out = run_both(up, fast, a, s)
        torch.testing.assert_close(out, f(a, s))


@requiresCUDA
@requiresNVFuser
def test_nvfuser_two_fusions_in_one_trace():
    def f(a):
        b = (a * 2).sin()
        c = torch.sort(b, dim=-1)[0]  # not fused: splits the graph into two regions
        return (c + 1).cos()

    up, fast = nvfuser_pair(f)
    a = torch.randn(4, 8, device="cuda")
    for _ in range(3):
        out = run_both(up, fast, a)
    torch.testing.assert_close(out, f(a))
    assert len(fusion_regions(fast)) == 2


@requiresCUDA
@requiresNVFuser
def test_nvfuser_requires_grad_forward_and_backward():
    f = lambda a, w: torch.tanh(a * w).sum()
    up, fast = nvfuser_pair(f)
    grads = []
    for jitted in (up, fast):
        for _ in range(3):
            a = torch.ones(4, 4, device="cuda", requires_grad=True)
            w = torch.full((4, 4), 0.5, device="cuda", requires_grad=True)
            out = jitted(a, w)
            out.backward()
        grads.append((out.detach(), a.grad, w.grad))
    assert_bitwise(grads[0], grads[1])


@requiresCUDA
@requiresNVFuser
def test_nvfuser_store_inputs_and_last_used():
    up, fast = nvfuser_pair(lambda a: a.exp(), nv_store_fusion_inputs=True)
    a = torch.randn(3, device="cuda")
    for _ in range(2):
        run_both(up, fast, a)
    (region,) = fusion_regions(fast)
    assert region.last_inputs[0] is a and region.last_used is not None
    assert_bitwise(region.last_used.execute(list(region.last_inputs)), fusion_regions(up)[0].last_used.execute([a]))


class RecordingExecutorCache:
    """Stands for nvFuser's FusionExecutorCache (what ``fd.execute`` creates as ``fd.fec``) and records the keyword
    arguments of each ``execute`` call: the device and the NVFUSER_ENABLE / NVFUSER_DISABLE options."""

    def __init__(self, real_class, calls, fusion):
        self._real, self._calls = real_class(fusion), calls

    def execute(self, inputs, **kwargs):
        self._calls.append(kwargs)
        return self._real.execute(inputs, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


@requiresCUDA
@requiresNVFuser
def test_nvfuser_options_reach_the_executor_like_upstream(monkeypatch):
    # nv_enable_options / nv_disable_options reach nvFuser as keyword arguments of FusionExecutorCache.execute, which
    # Thunder's fd.execute passes on every call. The fast path binds them to the executor once per layout: every
    # call (the first, hits, another layout, back to the first) must pass what Thunder's passes.
    import nvfuser_direct

    from thunder.fastpath.nvfuser import FusionRegion

    real = nvfuser_direct.FusionExecutorCache
    layouts = layouts_4x6("cuda")
    a, transposed = layouts["contiguous"], layouts["transposed"]
    up, fast = nvfuser_pair(
        lambda x: (x.exp() * 2).sum(0), nv_enable_options=["fuse_matmul"], nv_disable_options=["kernel_reuse"]
    )
    seen = {}
    for fastpath, jitted in ((False, up), (True, fast)):
        calls = []  # FusionExecutorCache is created at a region's first call, each one logging into this list
        monkeypatch.setattr(
            nvfuser_direct,
            "FusionExecutorCache",
            lambda fusion: RecordingExecutorCache(real, calls, fusion),  # noqa: B023  (used in this iteration)
        )
        outputs = [jitted(x) for x in (a, a, a, transposed, transposed, a)]
        keywords = [(kw.get("device"), kw.get("_enable_options", []), kw.get("_disable_options", [])) for kw in calls]
        seen[fastpath] = outputs, hits_misses(jitted), keywords, [type(r) for r in fusion_regions(jitted)]
    assert_bitwise(seen[True][0], seen[False][0])
    assert seen[True][1] == seen[False][1] == (5, 1)
    assert seen[True][2] == seen[False][2]  # device and options, call by call
    assert [options for _, *options in seen[False][2]] == [[["fuse_matmul"], ["kernel_reuse"]]] * 6
    assert seen[True][3] == [FusionRegion]


@requiresCUDA
@requiresNVFuser
def test_nvfuser_skip_cache_keeps_the_first_definition_like_upstream():
    # nv_skip_cache: a region runs the definition of its first call on every later call, whatever the layout.
    layouts = layouts_4x6("cuda")
    a, transposed = layouts["contiguous"], layouts["transposed"]
    up, fast = nvfuser_pair(lambda x: x.exp() * 2, nv_skip_cache=True)
    seen = {}
    for jitted in (up, fast):
        outcomes, definitions = [], []
        for x in (a, a, transposed, transposed, a):
            try:
                outcomes.append(jitted(x))
            except Exception as e:  # whatever nvFuser makes of the first definition on another layout
                outcomes.append(type(e))
            (region,) = fusion_regions(jitted)
            definitions.append(region.last_used)
        assert all(d is definitions[0] for d in definitions)
        seen[jitted] = outcomes, hits_misses(jitted)
    assert_bitwise(seen[fast], seen[up])
    assert seen[fast][1] == (4, 1)


@requiresCUDA
@requiresNVFuser
def test_nvfuser_regions_keep_upstreams_wrapper_without_tensor_guards(monkeypatch):
    # dynamo's TensorGuards is private torch API (test_guards.py): without it, regions keep Thunder's wrapper.
    from thunder.executors.nvfuserex_impl import FusionDefinitionWrapper

    monkeypatch.setattr(thunder.fastpath.nvfuser, "TensorGuards", None)
    a = torch.randn(4, 6, device="cuda")
    up, fast = nvfuser_pair(lambda x: x.exp() * 2)
    for _ in range(3):
        run_both(up, fast, a)
    assert fusion_regions(fast) and all(type(r) is FusionDefinitionWrapper for r in fusion_regions(fast))


@requiresCUDA
@requiresNVFuser
def test_nvfuser_save_fake_inputs_keeps_upstreams_wrapper():
    # nv_save_fake_inputs: fd.execute records fake copies of the inputs (for repro scripts) on every call, so the
    # regions of such callables keep Thunder's wrapper, hits included.
    from thunder.executors.nvfuserex_impl import FusionDefinitionWrapper

    a = torch.randn(4, 6, device="cuda")
    up, fast = nvfuser_pair(lambda x: x.exp() * 2, nv_save_fake_inputs=True)
    for _ in range(3):
        run_both(up, fast, a)
    for jitted in (up, fast):
        (region,) = fusion_regions(jitted)
        assert type(region) is FusionDefinitionWrapper
        assert [(t.shape, t.dtype, t.device) for t in region.last_used.fake_inputs] == [(a.shape, a.dtype, a.device)]


def calls_into(modules, fn, *args):
    """How many Python-level calls into the given module prefixes one call of ``fn`` makes."""
    seen = []

    def profiler(frame, event, arg):
        if event == "call":
            name = frame.f_globals.get("__name__", "")
        elif event == "c_call":
            name = getattr(arg, "__module__", None) or ""
        else:
            return
        if name.startswith(modules):
            seen.append(name)

    sys.setprofile(profiler)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return seen


@requiresCUDA
@requiresNVFuser
def test_nvfuser_cache_hit_makes_no_cuda_or_distributed_python_calls():
    x = issue1657_input()
    up, fast = nvfuser_pair(Issue1657())
    for _ in range(2):
        up(x), fast(x)
    modules = ("torch.cuda", "torch.distributed")
    assert calls_into(modules, up, x), "the upstream path should make such calls (else this test proves nothing)"
    assert calls_into(modules, fast, x) == []
