"""Behaviour of lightning-thunder 0.2.6 that looks wrong but that the fast path must reproduce, since it cannot be
stricter than upstream's lookup: values the prologue does not check, submodules changed after jit, the autocast stack,
property reads. Each test fails when upstream changes the behaviour it pins.
"""

from __future__ import annotations

import copy

import pytest
import torch

import thunder
import thunder.fastpath

from fastpath_harness import (
    Call,
    assert_bitwise,
    hits_misses,
    run_differential,
    t,
    took_fast_path,
)


def test_a_call_under_autocast_changes_later_compilations_like_upstream():
    # Upstream bug (lightning-thunder 0.2.6): populate_cache_info pushes the autocast state onto the compile data's
    # autocast_stack on every call under torch.autocast and never pops it, and Thunder's autocast transform applies
    # its rules whenever that stack is not empty. After one call under autocast, an entry compiled outside autocast
    # computes a float32 matmul in bfloat16 (eager: float32). The fast path's hits under autocast push as upstream's
    # calls do, so both stacks grow alike.
    bf16 = lambda: torch.autocast("cpu", dtype=torch.bfloat16)
    square = lambda n: lambda: ((t(n, n), t(n, n, seed=1)), {})
    calls = [
        Call(square(4)),
        Call(square(4), ctx=bf16, expect_fast=False),
        Call(square(4), ctx=bf16, expect_fast=True),
        Call(square(3), expect_fast=False),
        Call(square(3), expect_fast=True),
    ]
    up, fast = run_differential(lambda a, b: a @ b, calls)
    for jitted in (up, fast):
        assert len(thunder.compile_data(jitted).autocast_stack.stack) == 2  # one push per call under autocast
        (a, b), _ = square(3)()
        assert jitted(a, b).dtype is torch.bfloat16 and (a @ b).dtype is torch.float32


def test_values_that_upstream_does_not_check_behave_as_upstream():
    # Upstream 0.2.6's prologue does not check a dtype argument's value (Lightning-AI/lightning-thunder#406), nor
    # an argument that the function only compares with `is None`: the float16 call below hits the float64 entry
    # and returns float64, and the tensor call hits the None entry and returns `a`, on both paths. The fast path
    # cannot be stricter: a miss falls back to upstream's lookup, which takes the same entry. The fix belongs in
    # upstream's prologue generation.
    with_dtype = lambda d: lambda: ((t(3), d), {})
    calls = [
        Call(with_dtype(torch.float64)),
        Call(with_dtype(torch.float64), expect_fast=True),
        Call(with_dtype(torch.float16), expect_fast=True),
        Call(with_dtype(torch.float64), expect_fast=True),
    ]
    up, _ = run_differential(lambda a, d: a.to(d), calls)
    assert up(t(3), torch.float16).dtype is torch.float64  # upstream's stale entry; when this fails, upstream changed
    with_none = lambda o: lambda: ((t(3), o), {})
    calls = [
        Call(with_none(None)),
        Call(with_none(None), expect_fast=True),
        Call(with_none(t(3, seed=1)), expect_fast=True),
    ]
    run_differential(lambda a, o: a if o is None else a + o, calls)
    # Nor an index that is None or Ellipsis (found by tools/opinfo_differential.py's getitem): x[0] after x[...] hits
    # the Ellipsis entry and returns all of x.
    with_index = lambda k: lambda: ((t(3, 4), k), {})
    calls = [
        Call(with_index(Ellipsis)),
        Call(with_index(0), expect_fast=True),
        Call(with_index(None), expect_fast=True),
    ]
    up, _ = run_differential(lambda a, k: a[k], calls)
    assert up(t(3, 4), 0).shape == (3, 4)  # upstream's stale entry; when this fails, upstream changed
    # Nor a bytes, set or range argument's contents, nor the order of a dict argument's keys: each second call below
    # hits the first call's entry.
    n_times = lambda a, s: a * len(s)
    for name, fn, first, second, stale in [
        ("bytes", n_times, b"ab", b"abc", 2 * t(3)),
        ("set", n_times, {1, 2}, {1, 2, 3}, 2 * t(3)),
        ("range", lambda a, r: a * sum(r), range(3), range(4), 3 * t(3)),
        (
            "dict order",
            lambda a, d: torch.cat([a, *d.values()]),
            {"b": t(1, seed=1), "c": t(1, seed=2)},
            {"c": t(1, seed=2), "b": t(1, seed=1)},
            torch.cat([t(3), t(1, seed=1), t(1, seed=2)]),
        ),
    ]:
        calls = [Call(lambda v=first: ((t(3), v), {})), Call(lambda v=second: ((t(3), v), {}), expect_fast=True)]
        up, _ = run_differential(fn, calls)
        # upstream's stale entry; when this fails, upstream changed
        assert torch.equal(up(t(3), second), stale) and not torch.equal(fn(t(3), second), stale), name


def _hook_doubling_output(module):
    module.register_forward_hook(lambda mod, args, out: out * 2)


class _Doubled(torch.nn.Module):
    def forward(self, weight):
        return weight * 2


def _weight_doubled(module):
    torch.nn.utils.parametrize.register_parametrization(module, "weight", _Doubled())


def _forward_tripled(module):
    module.forward = lambda x: torch.nn.functional.linear(x, module.weight) * 3


@pytest.mark.parametrize(
    "hooked_from_start, change",
    [
        (False, lambda model: model.__setitem__(1, torch.nn.GELU())),  # a GELU swapped in for the ReLU
        (False, lambda model: _hook_doubling_output(model[0])),  # a forward hook registered after the first calls
        (True, lambda model: model[0]._forward_hooks.clear()),  # the hook traced at first, removed afterwards
        (False, lambda model: _forward_tripled(model[0])),  # a submodule's forward replaced on its instance
        (False, lambda model: setattr(model[0], "bias", None)),  # a submodule's parameter removed
        (False, lambda model: _weight_doubled(model[0])),  # a parametrization registered on a submodule's weight
    ],
    ids=["swapped", "hook_added", "hook_removed", "forward_replaced", "bias_removed", "parametrized"],
)
def test_submodule_changed_after_jit_behaves_as_upstream(hooked_from_start, change):
    # A ThunderModule looks submodules up in `_module_cache`, filled when the model is jitted, so a submodule swapped
    # in afterwards is not seen: the prologue checks the old one's attributes and passes. Nor does the prologue check
    # a submodule's hooks or instance forward, nor see its parameters removed or parametrized (it reads them from the
    # ThunderModule's copies made at jit time). Both paths keep running the entry traced before the change; like the
    # values above, this is upstream's to fix.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    if hooked_from_start:
        _hook_doubling_output(model[0])
    up, fast = thunder.jit(copy.deepcopy(model), fastpath=False), thunder.jit(copy.deepcopy(model), fastpath=True)
    x = t(2, 4) - 1
    traced = model(x)  # what the entry computes: the model before the change
    for m in (up, fast):
        m(x)
        m(x)
        change(m._model)
    took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
    out_up, out_fast = up(x), fast(x)
    assert_bitwise(out_up, out_fast)
    assert hits_misses(up) == hits_misses(fast) == (2, 1) and took_fast_path(fast)
    assert not torch.equal(up._model(x), traced)  # eager sees the change
    assert torch.equal(out_up, traced)  # the jitted model does not; when this fails, upstream changed


def test_functional_call_behaves_as_upstream():
    # torch.func.functional_call swaps the ThunderModule's parameters for the call, but the ThunderModule reads its
    # own parameter dicts, filled at jit time: both paths hit and use the original parameters (upstream's to fix).
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    up, fast = thunder.jit(copy.deepcopy(model), fastpath=False), thunder.jit(copy.deepcopy(model), fastpath=True)
    x = t(3, 4)
    swapped = {name: torch.randn_like(p) for name, p in model.named_parameters()}
    for m in (up, fast):
        m(x)
    took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
    out_up, out_fast = (torch.func.functional_call(m, swapped, (x,), strict=True) for m in (up, fast))  # names match
    assert_bitwise(out_up, out_fast)
    assert hits_misses(up) == hits_misses(fast) == (1, 1) and took_fast_path(fast)
    assert not torch.equal(torch.func.functional_call(model, swapped, (x,)), model(x))  # eager uses the swap
    assert torch.equal(out_up, model(x))  # the jitted module does not; when this fails, upstream changed


class CountedScale:
    """An argument whose ``k`` is a property that counts its reads (a read with a side effect)."""

    reads = 0

    @property
    def k(self):
        type(self).reads += 1
        return 2.0


def test_property_reads_on_hits_like_upstream():
    # A hit of the newest entry reads the property once on both paths: the guard reads what the prologue reads.
    # Elsewhere the fast path reads it more often, never less (README): the call that makes an entry runs the
    # guard's unpacking once more to build the guard; a miss runs the guards, then upstream's prologues; and a
    # guard checks tensors after all its reads, where a prologue may fail at a tensor check before reaching one.
    fn = lambda a, cfg: a * cfg.k
    shapes = [(3,), (3,), (3,), (4,), (4,), (3,)]  # make, hit, hit, make, hit, hit of the older entry
    reads = {}
    for fastpath in (False, True):
        f, cfg = thunder.jit(fn, fastpath=fastpath), CountedScale()
        reads[fastpath] = []
        for shape in shapes:
            before = CountedScale.reads
            assert torch.equal(f(t(*shape), cfg), t(*shape) * 2.0)
            reads[fastpath].append(CountedScale.reads - before)
        assert hits_misses(f) == (4, 2)
    assert len(f._lc_fastpath_state.hits) == 2  # both entries guarded: a hit that a guard declined would read twice
    up, fast = reads[False], reads[True]
    assert [fast[i] for i in (1, 2, 4)] == [up[i] for i in (1, 2, 4)] == [1, 1, 1], (up, fast)
    assert all(n_fast >= n_up for n_fast, n_up in zip(fast, up, strict=False)), (up, fast)
