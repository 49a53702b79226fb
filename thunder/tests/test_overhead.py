"""Equivalence and behaviour of thunder.fastpath against upstream thunder.jit (fast path off), in one process.

Each differential test jits the same callable twice, ``fastpath=False`` (upstream) and ``fastpath=True``, feeds
both the same call sequence, and requires after every call: the same outputs bitwise (or the same exception
type), the same ``cache_hits``/``cache_misses``, and, where a hit is expected, that the fast callable served
it without upstream's path.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import itertools
import os
import pathlib
import struct
import subprocess
import sys
import threading
import types
import warnings
import weakref
from contextlib import nullcontext
from typing import NamedTuple

import expecttest
import hypothesis
import pytest
import torch

import thunder
import thunder.fastpath
from thunder.fastpath.cache_hit import GuardBuildWarning
from thunder.fastpath.guard import DECLINE, MISS

# A guard that cannot be built is a bug of the generator: an error here, a warning for users.
pytestmark = pytest.mark.filterwarnings("error::thunder.fastpath.cache_hit.GuardBuildWarning")

REPO = pathlib.Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------------ harness
class Call:
    """One call: a factory for fresh (args, kwargs), so both systems get equal but distinct inputs; ``through``, if
    given, wraps the jitted callable for this call (a torch.func transform, say)."""

    def __init__(self, make, ctx=nullcontext, expect_fast=None, through=None):
        self.make, self.ctx, self.expect_fast, self.through = make, ctx, expect_fast, through


def outcome(f, call: Call):
    args, kwargs = call.make()
    with call.ctx():
        try:
            out = (f if call.through is None else call.through(f))(*args, **kwargs)
        except Exception as e:  # the exception type is part of the behaviour
            return ("raised", type(e)), args
    return ("returned", out), args


def assert_bitwise(a, b):
    fa, fb = torch.utils._pytree.tree_flatten(a), torch.utils._pytree.tree_flatten(b)
    assert fa[1] == fb[1], "different output structure"
    for x, y in zip(fa[0], fb[0]):
        if isinstance(x, torch.Tensor):
            assert isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.shape == y.shape and x.layout == y.layout
            assert x.requires_grad == y.requires_grad
            if x.layout is torch._mkldnn:  # assert_close does not take MKL-DNN tensors
                x, y = x.to_dense(), y.to_dense()
            torch.testing.assert_close(x, y, rtol=0, atol=0, equal_nan=True, msg="outputs differ")
            if x.is_floating_point() and x.layout is torch.strided and not x.is_meta:
                # assert_close counts -0.0 equal to 0.0
                assert torch.equal(torch.signbit(x), torch.signbit(y)), "signs of zeros differ"
        else:
            assert type(x) is type(y) and (x == y or (x != x and y != y))


def took_fast_path(fast) -> bool:
    # Upstream's path stamps the host timers on every call; the fast path's hits do not.
    cs = thunder.compile_stats(fast)
    return cs.last_trace_host_start == took_fast_path.stamp


def hits_misses(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


def _nvfuser_usable() -> bool:
    if not torch.cuda.is_available():
        return False
    from thunder.executors.nvfuserex import nvfuser_available

    return nvfuser_available()


requires_nvfuser = pytest.mark.skipif(not _nvfuser_usable(), reason="needs CUDA and nvFuser")


# The torch executor on the CPU; on CUDA (where nvFuser is usable) the torch executor and nvFuser regions.
DEVICES_AND_EXECUTORS = [
    ("cpu", ["torch"]),
    pytest.param("cuda", ["torch"], marks=requires_nvfuser),
    pytest.param("cuda", ["nvfuser"], marks=requires_nvfuser),
]


def run_differential(fn, calls, *, module=False, **jit_options):
    fn_up, fn_fast = (copy.deepcopy(fn), copy.deepcopy(fn)) if module else (fn, fn)
    up = thunder.jit(fn_up, fastpath=False, **jit_options)
    fast = thunder.jit(fn_fast, fastpath=True, **jit_options)
    assert thunder.fastpath.is_fast(fast) and not thunder.fastpath.is_fast(up)
    for i, call in enumerate(calls):
        took_fast = compare_call(up, fast, call, i)
        if call.expect_fast is not None:
            assert took_fast == call.expect_fast, f"call {i}: fast path taken != {call.expect_fast}"
    return up, fast


def compare_call(up, fast, call, i=0) -> bool:
    """Makes call number ``i`` on both callables and compares what it gave and did; returns whether the fast callable
    served it from a guard."""
    took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
    (kind_up, res_up), args_up = outcome(up, call)
    (kind_fast, res_fast), args_fast = outcome(fast, call)
    assert kind_up == kind_fast, f"call {i}: upstream {kind_up} {res_up}, fast {kind_fast} {res_fast}"
    if kind_up == "raised":
        assert res_up is res_fast, f"call {i}: {res_up} vs {res_fast}"
    else:
        assert_bitwise(res_up, res_fast)
        assert autograd_facts(res_up) == autograd_facts(res_fast), f"call {i}: views or autograd history differ"
        assert_bitwise(args_up, args_fast)  # in-place updates of inputs
    assert hits_misses(up) == hits_misses(fast), f"call {i}: {hits_misses(up)} vs {hits_misses(fast)}"
    assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls
    return took_fast_path(fast)


def t(*shape, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).requires_grad_(requires_grad)


# ------------------------------------------------------------------------------------------------ set-up
def test_fastpath_comes_from_this_checkout():
    # A stale installed copy would sit in site-packages, outside the checkout.
    path = pathlib.Path(thunder.fastpath.__file__).resolve()
    assert REPO in path.parents, f"thunder.fastpath imported from {path}, not from {REPO}"


# ------------------------------------------------------------------------------------------------ the switch
def add(a, b):
    return a + b


def test_switch_enable_disable_and_opt_out():
    was = thunder.fastpath.is_enabled()
    try:
        thunder.fastpath.disable()
        assert not thunder.fastpath.is_enabled()
        assert not thunder.fastpath.is_fast(thunder.jit(add))
        assert thunder.fastpath.is_fast(thunder.jit(add, fastpath=True))
        thunder.fastpath.enable()
        assert thunder.fastpath.is_enabled()
        fast, up = thunder.jit(add), thunder.jit(add, fastpath=False)
        assert thunder.fastpath.is_fast(fast) and not thunder.fastpath.is_fast(up)
        assert thunder.fastpath.is_fast(thunder.jit(torch.nn.Linear(2, 2)))
        assert not thunder.fastpath.is_fast(thunder.jit(torch.nn.Linear(2, 2), fastpath=False))
        # Side by side: both keep working, each on its own path.
        a = t(3)
        for _ in range(2):
            assert torch.equal(fast(a, a), up(a, a))
    finally:
        (thunder.fastpath.enable if was else thunder.fastpath.disable)()


@pytest.mark.parametrize("value, expected", [("0", False), ("1", True), (None, True)])
def test_switch_environment_variable(value, expected):
    env = {k: v for k, v in os.environ.items() if k != "THUNDER_FASTPATH"}
    if value is not None:
        env["THUNDER_FASTPATH"] = value
    code = (
        "import thunder, thunder.fastpath\n"
        "f = thunder.jit(lambda a: a + 1)\n"
        "print(thunder.fastpath.is_enabled(), thunder.fastpath.is_fast(f))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(expected), str(expected)]


def test_fastpath_argument_needs_the_import():
    # What README says: before `import thunder.fastpath`, `fastpath=True` is an unknown compile option that
    # lightning-thunder 0.2.6 keeps and ignores; a callable jitted after the import takes the fast path.
    code = (
        "import thunder, torch\n"
        "before = thunder.jit(lambda a: a + 1, fastpath=True)\n"
        "import thunder.fastpath\n"
        "after = thunder.jit(lambda a: a + 1, fastpath=True)\n"
        "print(thunder.fastpath.is_fast(before), thunder.fastpath.is_fast(after))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "THUNDER_FASTPATH"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_transformed_callables_keep_the_choice():
    # add_transform (behind thunder.distributed.ddp/fsdp, thunder.core.transforms.grad, noop, ...) jits the
    # function again: the new callable takes the fast path exactly when the one it transforms does, whatever the
    # switch says when it is made.
    from thunder.core.transforms import grad, noop

    f = lambda a: (a.sin() * 2).sum()
    was = thunder.fastpath.is_enabled()
    try:
        for switch in (thunder.fastpath.enable, thunder.fastpath.disable):
            for fastpath in (False, True):
                jitted = thunder.jit(f, fastpath=fastpath), thunder.jit(torch.nn.Linear(2, 2), fastpath=fastpath)
                switch()
                for transformed in (noop(jitted[0]), grad(jitted[0]), noop(jitted[1])):
                    assert thunder.fastpath.is_fast(transformed) == fastpath
    finally:
        (thunder.fastpath.enable if was else thunder.fastpath.disable)()
    up, fast = grad(thunder.jit(f, fastpath=False)), grad(thunder.jit(f, fastpath=True))
    a = t(3)
    for _ in range(3):
        assert_bitwise(up(a), fast(a))
        assert hits_misses(up) == hits_misses(fast)
    assert thunder.cache_hits(fast) == 2


def test_jit_signature_lists_upstreams_keywords_and_fastpath():
    # ThunderFX's get_thunder_jit_kwargs keeps only the keywords that inspect.getfullargspec(thunder.jit) lists.
    import inspect

    from thunder.dynamo.utils import get_thunder_jit_kwargs

    upstream = inspect.getfullargspec(thunder.jit._lc_upstream_jit).kwonlyargs
    assert inspect.getfullargspec(thunder.jit).kwonlyargs == upstream + ["fastpath"]
    options = {"cache": "symbolic values", "disable_torch_autograd": True, "fastpath": False}
    assert get_thunder_jit_kwargs(**options, not_a_jit_option=1) == options


def test_thunderfx_subgraphs_take_the_fast_path():
    from thunder.dynamo import thunderfx

    def f(x, y):
        return torch.sin(x) * y + 1

    compiled = {fastpath: thunderfx(f, fastpath=fastpath) for fastpath in (False, True)}
    for shape in [(4,), (4,), (4,), (2, 3), (2, 3)]:
        outs = {fastpath: c(t(*shape), t(*shape, seed=1)) for fastpath, c in compiled.items()}
        assert_bitwise(outs[False], outs[True])
    jitted = {
        fastpath: [fn for info in c._backend.subgraph_infos for fn in info.thunder_compiled_fns]
        for fastpath, c in compiled.items()
    }
    assert jitted[True] and all(thunder.fastpath.is_fast(fn) for fn in jitted[True])
    assert not any(thunder.fastpath.is_fast(fn) for fn in jitted[False])
    assert [hits_misses(fn) for fn in jitted[True]] == [hits_misses(fn) for fn in jitted[False]]
    assert sum(thunder.cache_hits(fn) for fn in jitted[True]) >= 2


def test_uncached_options_keep_upstream_path():
    assert not thunder.fastpath.is_fast(thunder.jit(add, cache="no caching"))
    # Their cache path is upstream's, but their nvFuser regions follow the callable's choice (nvfuser.py reads it from
    # the compile data when it creates a region): the region call does not depend on the cache.
    for fastpath in (True, False):
        cd = thunder.compile_data(thunder.jit(add, cache="no caching", fastpath=fastpath))
        assert getattr(cd, "_lc_fastpath", False) is fastpath


# ------------------------------------------------------------------------------------------------ recompilation
def test_shapes_dtypes_and_requires_grad():
    calls = [
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {})),
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),
        Call(lambda: ((t(4, 3), t(4, 3)), {}), expect_fast=False),  # new shape: miss
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),  # older entry
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3, dtype=torch.float64)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3, dtype=torch.float64)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=True),
        Call(lambda: ((t(4, 3), t(4, 3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a * b + a.sin(), calls)


def test_several_outputs_and_pass_through():
    # epilogues that only pass outputs through are skipped on hits: the results must not change
    make = lambda: ((t(3), t(3, seed=1)), {})
    run_differential(lambda a, b: (a + 1, a * b), [Call(make), Call(make, expect_fast=True)])
    run_differential(lambda a, b: (a + b, [b.sin(), {"x": a}], a), [Call(make), Call(make, expect_fast=True)])


def test_strides_do_not_matter_to_the_cache():
    calls = [
        Call(lambda: ((t(3, 3), t(3, 3)), {})),
        Call(lambda: ((t(3, 3).t(), t(3, 3)), {}), expect_fast=True),
        Call(lambda: ((t(3, 6)[:, ::2], t(3, 3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a @ b, calls)


@contextlib.contextmanager
def float64_default():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def test_grad_mode_autocast_default_dtype_and_device():
    # Four entries in one callable, one per state (grad mode on, off, autocast, float64 default dtype): each call
    # meets its own.
    make = lambda: ((t(4, 4), t(4, 4, seed=1)), {})
    calls = [
        Call(make),
        Call(make, expect_fast=True),
        Call(make, ctx=torch.no_grad, expect_fast=False),
        Call(make, ctx=torch.no_grad, expect_fast=True),
        Call(make, expect_fast=True),
        Call(make, ctx=lambda: torch.autocast("cpu", dtype=torch.bfloat16), expect_fast=False),
        Call(make, ctx=lambda: torch.autocast("cpu", dtype=torch.bfloat16), expect_fast=True),
        Call(make, ctx=lambda: torch.device("cpu"), expect_fast=True),
        Call(make, expect_fast=True),
        Call(make, ctx=float64_default, expect_fast=False),
        Call(make, ctx=float64_default, expect_fast=True),
        Call(make, expect_fast=True),
    ]
    # torch.ones: the default dtype and device matter
    _, fast = run_differential(lambda a, b: (a @ b).relu() + torch.ones(4), calls)
    assert len(fast._lc_fastpath_state.hits) == 4


def test_a_call_under_autocast_changes_later_compilations_like_upstream():
    # Upstream bug (lightning-thunder 0.2.6): populate_cache_info pushes the autocast state onto the compile data's
    # autocast_stack on every call under torch.autocast and never pops it, and Thunder's autocast transform applies
    # its rules whenever that stack is not empty. After one call under autocast, an entry compiled outside autocast
    # computes a float32 matmul in bfloat16 (eager: float32). The fast path's hits under autocast push as upstream's
    # calls do, so both stacks grow alike (sessions 42 and 43).
    bf16 = lambda: torch.autocast("cpu", dtype=torch.bfloat16)
    square = lambda n: lambda: ((t(n, n), t(n, n, seed=1)), {})
    calls = [Call(square(4)), Call(square(4), ctx=bf16, expect_fast=False),
             Call(square(4), ctx=bf16, expect_fast=True), Call(square(3), expect_fast=False),
             Call(square(3), expect_fast=True)]
    up, fast = run_differential(lambda a, b: a @ b, calls)
    for jitted in (up, fast):
        assert len(thunder.compile_data(jitted).autocast_stack.stack) == 2  # one push per call under autocast
        (a, b), _ = square(3)()
        assert jitted(a, b).dtype is torch.bfloat16 and (a @ b).dtype is torch.float32


@contextlib.contextmanager
def autocast_flag(device):
    """Turns one device's autocast flag on (thread-local state that torch keeps also for devices it does not have)."""
    before = torch.is_autocast_enabled(device)
    torch.set_autocast_enabled(device, True)
    try:
        yield
    finally:
        torch.set_autocast_enabled(device, before)


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_hits_under_autocast(device, executors):
    # Since session 43 an entry made under CPU's or CUDA's autocast takes the fast path on hits: the guard checks the
    # autocast state that upstream's cache info holds, the hit calls the entry's functions through upstream's
    # no_autocast decorator (autocast off inside; since session 44 with grad mode switched as for any entry, not by
    # the torch.no_grad() decorator) and pushes onto the compile data's autocast stack as upstream's
    # populate_cache_info does on each call under autocast.
    other = "cuda" if device == "cpu" else "cpu"
    bf16 = lambda: torch.autocast(device, dtype=torch.bfloat16)
    fp16 = lambda: torch.autocast(device, dtype=torch.float16)

    @contextlib.contextmanager
    def both(first, second):
        with first(), second():
            yield

    make = lambda: ((t(8, 8).to(device), t(8, 8, seed=1).to(device)), {})
    # The autocast and grad mode that the caller finds after the call, inside its context.
    and_state = lambda f: lambda *a, **k: (
        f(*a, **k), torch.is_autocast_enabled(device), torch.get_autocast_dtype(device), torch.is_grad_enabled()
    )
    calls = [
        Call(make, ctx=bf16, expect_fast=False),
        Call(make, ctx=bf16, expect_fast=True, through=and_state),
        Call(make, ctx=fp16, expect_fast=False),  # another autocast dtype: a miss
        Call(make, ctx=fp16, expect_fast=True, through=and_state),
        Call(make, ctx=bf16, expect_fast=True),  # the older entry
        Call(make, ctx=lambda: torch.autocast(device, enabled=False), expect_fast=False),  # autocast off: a miss
        Call(make, expect_fast=True),
        Call(make, ctx=bf16, expect_fast=True, through=and_state),  # the newest entry (autocast off) misses
        Call(make, ctx=lambda: both(bf16, torch.no_grad), expect_fast=False),  # grad mode off: a miss
        Call(make, ctx=lambda: both(bf16, torch.no_grad), expect_fast=True, through=and_state),
        # CPU's and CUDA's autocast together: upstream raises before trying an entry, and so does the fast path
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag(other)), expect_fast=False),
        # An autocast that upstream does not look at, besides this device's: the bf16 entry, as upstream finds it
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag("xpu")), expect_fast=True),
        Call(make, ctx=lambda: autocast_flag("xpu"), expect_fast=False),  # alone: upstream decides
    ]
    # mse_loss: the torch executor calls torch's, which autocast would compute in float32 (Thunder's trace: bfloat16)
    f = lambda a, b: ((a @ b).relu() + a, torch.nn.functional.mse_loss(a @ b, b @ a))
    up, fast = run_differential(f, calls, executors=executors)
    stacks = [list(thunder.compile_data(jitted).autocast_stack.stack) for jitted in (up, fast)]
    assert stacks[0] == stacks[1] and len(stacks[0]) == 9  # the calls under one autocast, each pushed once
    assert thunder.compile_stats(fast).calls == 13 and hits_misses(fast) == (8, 4)


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_training_under_autocast(device, executors):
    def make():
        return t(4, 8, requires_grad=True).to(device), t(8, 8, seed=1).to(device).requires_grad_()

    def forward_and_backward(f):
        a, w = make()
        with torch.autocast(device, dtype=torch.bfloat16):
            out = f(a, w)
        out.float().sum().backward()
        return out.detach(), out.dtype, a.grad, w.grad

    f = lambda a, w: torch.tanh(a @ w) * 2
    up = thunder.jit(f, fastpath=False, executors=executors)
    fast = thunder.jit(f, fastpath=True, executors=executors)
    for i in range(3):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        assert_bitwise(forward_and_backward(up), forward_and_backward(fast))
        assert hits_misses(up) == hits_misses(fast)
        assert took_fast_path(fast) == (i > 0)
    assert forward_and_backward(fast)[1] is torch.bfloat16


def test_default_dtype():
    make = lambda: ((t(3),), {})
    calls = [Call(make), Call(make, expect_fast=True), Call(make, ctx=float64_default, expect_fast=False),
             Call(make, ctx=float64_default, expect_fast=True), Call(make, expect_fast=True)]
    run_differential(lambda a: a + torch.arange(3), calls)


# Argument pairs for the aliasing tests: two tensors of their own, one tensor twice, two views of one storage.
def fresh():
    return (t(5), t(5, seed=1)), {}


def same_twice():
    a = t(5)
    return (a, a), {}


def views_of_one_storage():
    base = t(10)
    return (base[:5], base[5:]), {}


def test_aliased_inputs():
    calls = [Call(fresh), Call(fresh, expect_fast=True), Call(same_twice, expect_fast=False),
             Call(same_twice, expect_fast=True), Call(views_of_one_storage, expect_fast=True), Call(fresh, expect_fast=True)]

    def f(a, b):
        a.mul_(2)
        return a + b

    run_differential(f, calls)


def test_aliased_keyword_arguments_in_any_order():
    # Keyword arguments reach upstream's alias check flattened by Thunder's pytree, which sorts dict keys: the same
    # tensor as b and c is "1,2" whatever order the caller gave. The entry made for it hits in any order, on the
    # fast path (the general alias check, which must read the keyword arguments too).
    def keywords(*order, alias=False):
        def make():
            x, y = t(5), t(5, seed=1)
            values = {"a": y, "b": x, "c": x if alias else t(5, seed=2)}
            return (), {k: values[k] for k in order}

        return make

    calls = [
        Call(keywords(*"abc")), Call(keywords(*"abc"), expect_fast=True),
        Call(keywords(*"abc", alias=True), expect_fast=False), Call(keywords(*"abc", alias=True), expect_fast=True),
        Call(keywords(*"bca", alias=True), expect_fast=True), Call(keywords(*"cba"), expect_fast=True),
    ]
    up, fast = run_differential(lambda **kw: kw["a"] * 2 + kw["b"] - kw["c"], calls)
    assert hits_misses(up) == (4, 2) and len(fast._lc_fastpath_state.hits) == 2


def test_aliasing_when_the_prologue_does_not_check_the_inputs():
    # ThunderFX prunes the prologue's tensor checks (Dynamo guards the inputs): the guard then learns nothing about
    # the arguments' types, tests them itself for its short alias check, and falls back to the general one.
    from thunder.transforms.extraction_only_prologue_transform import ExtractionOnlyPrologueTransform

    def parameter_and_tensor():  # not exactly torch.Tensor: upstream's alias check ignores it, so does the guard
        return (torch.nn.Parameter(t(5), requires_grad=False), t(5, seed=1)), {}

    calls = [Call(fresh), Call(fresh, expect_fast=True), Call(same_twice, expect_fast=False),
             Call(views_of_one_storage, expect_fast=True), Call(parameter_and_tensor, expect_fast=True),
             Call(fresh, expect_fast=True)]
    transforms = [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]
    _, fast = run_differential(lambda a, b: a * b, calls, transforms=transforms)
    source = fast._lc_fastpath_state.hits[-1].source
    assert "is torch.Tensor and" in source and "__alias_string(args, kwargs)" in source  # both forms are there


def test_prologue_without_checks_behaves_as_upstream():
    # PrunePrologueChecks(prune_all_checks=True) leaves the prologue no check at all, the alias check included (the
    # user vouches for the inputs): upstream then hits its one entry whatever the shapes, dtypes or aliasing, and the
    # guard built from that prologue must neither check more nor fail to build (found by session 41's
    # transforms_probe.py).
    from thunder.transforms.prune_prologue_checks import PrunePrologueChecks

    other_shape = lambda: ((t(2, 3), t(2, 3, seed=1)), {})
    other_dtype = lambda: ((t(5, dtype=torch.float64), t(5, seed=1)), {})
    calls = [Call(fresh), *(Call(make, expect_fast=True)
                            for make in (fresh, same_twice, views_of_one_storage, other_shape, other_dtype))]
    up, fast = run_differential(lambda a, b: a * b, calls, transforms=[PrunePrologueChecks(prune_all_checks=True)])
    assert hits_misses(fast) == (5, 1) and fast._lc_fastpath_state.unsupported == []


class TiedEmbeddings(torch.nn.Module):
    """A language model's weight tying: the output layer shares the embedding's Parameter (GPT-2, nanoGPT, LLaMA-2's
    small configurations), so the prologue reads one tensor under two names."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(16, 4)
        self.out = torch.nn.Linear(4, 16, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(torch.tanh(self.emb(idx)))


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_one_tensor_under_two_names_takes_the_tensor_guard(device, executors, monkeypatch):
    # TensorGuards fails on a tensor passed twice: until session 42 every hit of a weight-tied model (and of f(x, x))
    # went on to the slow per-tensor check (small_models.py's nanoGPT on this CPU: a guard of 99 µs, 19 untied;
    # BENCHMARKS.md). The guard now checks each tensor once and the later name by identity; once the names hold two
    # tensors, the slow check decides, as the prologue does.
    from thunder.fastpath import guard as guard_module

    slow_checks = []

    def counting_check(*args, _check=guard_module.check_tensors_slowly):
        slow_checks.append(args)
        return _check(*args)

    monkeypatch.setattr(guard_module, "check_tensors_slowly", counting_check)  # read when a guard is built
    torch.manual_seed(0)
    idx = lambda: ((torch.tensor([[1, 2, 3]], device=device),), {})
    calls = [Call(idx), Call(idx, expect_fast=True), Call(idx, expect_fast=True)]
    up, fast = run_differential(TiedEmbeddings().to(device), calls, module=True, executors=executors)
    assert fast.get_parameter("out.weight") is fast.get_parameter("emb.weight")  # still tied in the copies
    assert slow_checks == []
    # Untied: the ThunderModule keeps one of the names (the embedding's) and reads the other from the model, where a
    # new Parameter with other values now stands.
    for jitted in (up, fast):
        jitted._model.out.weight = torch.nn.Parameter(jitted.get_parameter("emb.weight").detach() * 2)
    assert fast.get_parameter("out.weight") is not fast.get_parameter("emb.weight")
    assert compare_call(up, fast, Call(idx)) and len(slow_checks) == 1
    for jitted in (up, fast):  # another dtype under the later name alone: a miss
        jitted._model.out.weight = torch.nn.Parameter(jitted.get_parameter("emb.weight").detach().double())
    assert not compare_call(up, fast, Call(idx))
    # A function given one tensor twice: its hits take the tensor guard; two tensors then miss that entry.
    calls = [Call(same_twice), Call(same_twice, expect_fast=True), Call(same_twice, expect_fast=True)]
    slow_checks.clear()
    up, fast = run_differential(lambda a, b: a * b + a, calls, executors=executors)
    assert slow_checks == []
    assert not compare_call(up, fast, Call(fresh)) and len(slow_checks) == 1
    # Self-attention: one tensor as query, key and value of nn.MultiheadAttention.
    def self_attention():
        q = torch.randn(1, 4, 8, generator=torch.Generator().manual_seed(0)).to(device)
        return (q, q, q), {"need_weights": False}

    slow_checks.clear()
    attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval().to(device)
    calls = [Call(self_attention, ctx=torch.no_grad)] + [Call(self_attention, ctx=torch.no_grad, expect_fast=True)] * 2
    run_differential(attention, calls, module=True, executors=executors)
    assert slow_checks == []


def test_in_place_update_of_an_input():
    make = lambda: ((t(4), t(4, seed=1)), {})

    def f(a, b):
        a.add_(b)
        return a * 2

    run_differential(f, [Call(make), Call(make, expect_fast=True), Call(make, expect_fast=True)])


def test_computation_that_raises_on_a_hit():
    # An index out of range is found only when the computation runs: on a hit, the same exception as upstream, the
    # same counts, and grad mode as the caller had it, on the guard's layout (no switch) and on another (switched).
    def f(x, index):
        return x[index] * 2

    @contextlib.contextmanager
    def grad_mode_kept(enabled):
        with torch.set_grad_enabled(enabled):
            yield
            assert torch.is_grad_enabled() is enabled, "the call changed grad mode"

    contiguous, strided = (lambda: t(6)), (lambda: t(12)[::2])
    calls = [
        Call(lambda make=make, i=i: ((make(), torch.tensor(i)), {}), ctx=functools.partial(grad_mode_kept, grad))
        for grad in (True, False)
        for make in (contiguous, strided)
        for i in ([0, 5], [7, 1], [2, 3])  # fits, out of range, fits
    ]
    up, fast = run_differential(f, calls)
    assert hits_misses(fast) == (10, 2)  # an entry per grad mode


@pytest.mark.parametrize("requires_grad", [False, True])
def test_entry_whose_first_call_raised_gets_its_guard(requires_grad):
    # A new shape whose first call raises in the computation (as an out-of-memory error would) leaves a cache entry.
    # It gets its guard all the same: the older entry's hits stay fast, and its own hits raise as upstream's do.
    # An error while tracing (a number that the function rejects) leaves no entry and changes nothing.
    def f(x, index, n=1):
        if n > 1:
            raise ValueError("n > 1")
        return torch.index_select(x, 0, index) * 2

    def call(size, index, n=1, expect_fast=None):
        make = lambda: ((t(size, requires_grad=requires_grad), torch.tensor(index), n), {})
        return Call(make, expect_fast=expect_fast)

    calls = [
        call(4, [1, 2], expect_fast=False),  # miss
        call(4, [1, 2], expect_fast=True),
        call(5, [7], expect_fast=False),  # miss: an entry whose computation raises
        call(4, [1, 2], expect_fast=True),  # the older entry
        call(5, [7], expect_fast=True),  # raises again, from its guarded entry
        call(5, [0], expect_fast=True),
        call(4, [1, 2], n=2, expect_fast=False),  # raises while tracing: no entry
        call(4, [1, 2], expect_fast=True),
    ]
    up, fast = run_differential(f, calls)
    assert hits_misses(fast) == (5, 3)


class ScaledByBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((4,), 2.0))

    def forward(self, x):
        return x * self.scale


@pytest.mark.parametrize("converted", ["model", "thunder_module"])
def test_entry_whose_prologue_failed_on_its_first_call_gets_no_guard(converted):
    # After `jitted.double()` (or `jitted._model.double()`) upstream traces the buffer as float64 but its prologue
    # reads the ThunderModule's float32 copy (`_overrides_buffers`), so each call with float64 inputs compiles an
    # entry whose prologue then raises. A guard built from such a call would pin the float32 buffer it saw and hit
    # where the prologue fails: the entry gets none, and each call raises as upstream's does.
    up = thunder.jit(ScaledByBuffer(), fastpath=False)
    fast = thunder.jit(ScaledByBuffer(), fastpath=True)
    x = lambda dtype: Call(lambda: ((t(4, dtype=dtype),), {}))
    state = fast._forward_fn._lc_fastpath_state
    compare_call(up, fast, x(torch.float32))
    for m in (up, fast):
        (m if converted == "thunder_module" else m._model).double()
    for i in range(1, 4):
        compare_call(up, fast, x(torch.float64), i)
        assert state.hits == ()
    assert hits_misses(fast) == (0, 4)
    with pytest.raises(AssertionError, match="expected tensor"):
        fast(t(4, dtype=torch.float64))
    assert "does not pass its guard" in state.unsupported[0]


def test_call_that_raised_keeps_its_exception_when_the_guard_cannot_be_built(monkeypatch):
    def f(x, index):
        return torch.index_select(x, 0, index) * 2

    fast = thunder.jit(f)
    monkeypatch.setattr(thunder.fastpath.cache_hit, "build_guard", lambda *a, **k: 1 / 0)
    with pytest.raises(IndexError), pytest.warns(GuardBuildWarning, match="ZeroDivisionError"):
        fast(t(4), torch.tensor([7]))
    monkeypatch.undo()
    # The entry keeps upstream's path, with upstream's exceptions and results, and is not tried again.
    state = fast._lc_fastpath_state
    assert state.hits == () and "ZeroDivisionError while building the guard" in state.unsupported[0]
    with pytest.raises(IndexError):
        fast(t(4), torch.tensor([7]))
    assert_bitwise(fast(t(4), torch.tensor([1])), f(t(4), torch.tensor([1])))
    assert state.hits == () and len(state.unsupported) == 1
    assert hits_misses(fast) == (2, 1)


def test_guard_that_cannot_be_built_leaves_the_entry_on_upstreams_path(monkeypatch):
    # An unexpected error while the guard is built (a generator bug) must not cost the caller upstream's result.
    def f(x, y):
        return x * y + 1

    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f)
    same_shape = lambda n: Call(lambda: ((t(n), t(n)), {}))
    monkeypatch.setattr(thunder.fastpath.cache_hit, "build_guard", lambda *a, **k: 1 / 0)
    with pytest.warns(GuardBuildWarning, match="keeps upstream's path"):
        compare_call(up, fast, same_shape(3))
    monkeypatch.undo()
    # The newer entry (shape 4) gets its guard; the failed one does not, and calls of shape 3 take upstream's path.
    served = [compare_call(up, fast, same_shape(n), i) for i, n in enumerate([3, 3, 4, 4, 3, 4], start=1)]
    assert served == [False, False, False, True, False, True]
    state = fast._lc_fastpath_state
    assert len(state.unsupported) == 1 and len(state.hits) == 1
    assert sorted(hit is None for _, hit in state.by_entry.values()) == [False, True]
    assert hits_misses(fast) == (5, 2)


def test_constant_values_numbers_and_strings():
    def f(a, n, s, flag=True):
        out = a * n
        if s == "double":
            out = out * 2
        return out if flag else -out

    calls = [
        Call(lambda: ((t(3), 2, "double"), {})),
        Call(lambda: ((t(3), 2, "double"), {}), expect_fast=True),
        Call(lambda: ((t(3), 3, "double"), {}), expect_fast=False),
        Call(lambda: ((t(3), 2.0, "double"), {}), expect_fast=False),  # same value, other type
        Call(lambda: ((t(3), 2, "single"), {}), expect_fast=False),
        Call(lambda: ((t(3), 2, "double"), {"flag": False}), expect_fast=False),
        Call(lambda: ((t(3), 2, "double"), {"flag": False}), expect_fast=True),
        Call(lambda: ((t(3), float("nan"), "x"), {}), expect_fast=False),
        Call(lambda: ((t(3), float("nan"), "x"), {}), expect_fast=True),
        Call(lambda: ((t(3), 3, "double"), {}), expect_fast=True),
    ]
    run_differential(f, calls)


def test_bools_ints_and_signed_zeros_as_upstream():
    # True == 1 and -0.0 == 0.0 in Python. The prologue checks a number's exact type, so a bool does not hit an int's
    # entry, nor an int a bool's (an isinstance check would let True in: bool is an int); and it compares the value
    # with ==, so -0.0 hits the entry made for 0.0, whose outputs have the signs of 0.0's products: upstream's, which
    # the fast path gives too (assert_bitwise compares the signs of zeros).
    def f(a, n):
        return a * n

    calls = [
        Call(lambda: ((t(3), 1), {}), expect_fast=False),
        Call(lambda: ((t(3), True), {}), expect_fast=False),
        Call(lambda: ((t(3), 1), {}), expect_fast=True),
        Call(lambda: ((t(3), True), {}), expect_fast=True),
        Call(lambda: ((t(3), 0.0), {}), expect_fast=False),
        Call(lambda: ((t(3), -0.0), {}), expect_fast=True),
    ]
    _, fast = run_differential(f, calls)
    assert thunder.cache_misses(fast) == 3


def test_slices_passed_as_arguments():
    # The prologue compares a slice argument by value (check_slice_value); so does the guard.
    def f(x, index):
        return x[index] * 2

    def call(index, expect_fast):
        return Call(lambda: ((t(6, 4), index), {}), expect_fast=expect_fast)

    calls = [
        call(slice(1, 3), False),
        call(slice(1, 3), True),
        call(slice(0, 2), False),  # same output shape, other values
        call(slice(1, 3), True),  # the older entry
        call(slice(1, 3, 1), False),  # step 1 is not step None to ==
        call((slice(None), slice(2, None)), False),  # slices inside a tuple
        call((slice(None), slice(2, None)), True),
        call((slice(None), slice(1, None)), False),
    ]
    up, fast = run_differential(f, calls)
    assert fast._lc_fastpath_state.unsupported == []


def test_symbolic_values():
    def f(a, n):
        return a * n + a.shape[0]

    calls = [Call(lambda: ((t(3), 2), {})), Call(lambda: ((t(3), 5), {})), Call(lambda: ((t(7), 5), {})),
             Call(lambda: ((t(7, dtype=torch.float64), 1), {})), Call(lambda: ((t(2), 9), {}))]
    up, fast = run_differential(f, calls, cache="symbolic values")
    assert thunder.cache_hits(fast) >= 2
    # Under "symbolic values" upstream 0.2.6 does not check a torch.Size argument's values either: reshaping to (3, 2)
    # after (2, 3) hits the first entry and returns (2, 3) (found by session 41's argument_kinds_probe.py).
    calls = [Call(lambda s=s: ((t(6), torch.Size(s)), {}), expect_fast=expect) for s, expect in
             [((2, 3), False), ((2, 3), True), ((3, 2), True)]]
    up, _ = run_differential(lambda a, s: a.reshape(s), calls, cache="symbolic values")
    assert up(t(6), torch.Size([3, 2])).shape == (2, 3)  # upstream's stale entry; when this fails, upstream changed


def test_containers_kwargs_and_varying_arity():
    def f(*args, scale=1.0, extra=None, **kwargs):
        out = args[0] * scale
        for x in args[1:]:
            out = out + x
        if extra is not None:
            out = out + extra["w"][0] * extra["w"][1] + extra["list"][0] * extra["list"][1]
        for k in sorted(kwargs):
            out = out + kwargs[k]
        return out, len(args)

    extra = lambda: {"w": (t(3, seed=5), 2.0), "list": [t(3, seed=6), t(3, seed=7)]}
    calls = [
        Call(lambda: ((t(3),), {})),
        Call(lambda: ((t(3),), {}), expect_fast=True),
        Call(lambda: ((t(3), t(3)), {}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=True),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=False),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=True),
        # upstream's prologue does not check the length of a list it reads from: a hit, for both
        Call(lambda: ((t(3),), {"extra": {**extra(), "list": [t(3), t(3), t(3)]}}), expect_fast=True),
        Call(lambda: ((t(3),), {"z": t(3), "y": t(3, seed=2)}), expect_fast=False),
        Call(lambda: ((t(3),), {"y": t(3, seed=2), "z": t(3)}), expect_fast=True),
        Call(lambda: ((t(3),), {}), expect_fast=True),
    ]
    run_differential(f, calls)


def test_bad_input_raises_like_upstream():
    calls = [
        Call(lambda: ((t(3), t(3)), {})),
        Call(lambda: ((t(3),), {})),  # wrong arity
        Call(lambda: ((t(3), None), {})),  # None where a tensor was
        Call(lambda: ((t(3), "x"), {})),
        Call(lambda: ((t(3), t(3, dtype=torch.int64)), {})),  # new dtype: recompiles
        Call(lambda: ((t(3), t(3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a + b, calls)


_PLAIN = t(4)


def _leaked_batched_tensor(x):
    leaked = []
    torch.vmap(lambda a: leaked.append(a) or a)(x)
    return leaked[0]  # a BatchedTensor whose vmap has ended


@pytest.mark.parametrize(
    "n_inputs, make, through",
    [
        (1, lambda x: (x,), torch.vmap),
        (2, lambda x: (x, x + 1), torch.vmap),
        (1, lambda x: (x[0],), torch.func.grad),
        (1, lambda x: (x[0],), torch.func.functionalize),
        (1, lambda x: (_leaked_batched_tensor(x),), None),
        (1, lambda x: (x,), lambda f: torch.vmap(lambda a: f(_PLAIN) + a)),  # a plain tensor inside vmap: hits
    ],
    ids=["vmap", "vmap_two_inputs", "grad", "functionalize", "leaked_from_vmap", "plain_inside_vmap"],
)
def test_torch_func_transforms_behave_as_upstream(n_inputs, make, through):
    # functorch's wrapped tensors have the shapes and dtypes that the prologue checks, but upstream's alias detection
    # cannot read their storage pointers and raises before trying any entry; a guard (whose slow tensor check accepts
    # other dispatch keys) must not hit them and return a result.
    fn = (lambda a: (a.sin() * 2).sum()) if n_inputs == 1 else (lambda a, b: (a.sin() * b).sum())
    plain = Call(lambda: ((t(4),) * n_inputs, {}))
    transformed = Call(lambda: (make(t(3, 4)), {}), through=through)
    run_differential(fn, [plain, transformed, Call(plain.make, expect_fast=True)])


def test_empty_tensors_count_as_aliased_like_upstream():
    # Upstream groups tensors by storage pointer, and every empty storage's pointer is 0.
    empty_pair = lambda: ((torch.empty(0), torch.empty(0)), {})
    calls = [Call(empty_pair), Call(empty_pair, expect_fast=True), Call(lambda: ((t(0), t(0, seed=1)), {}), expect_fast=True)]
    run_differential(lambda a, b: a + b, calls)


def test_separate_storages_of_one_memory_count_as_aliased_like_upstream():
    # torch.frombuffer twice on one buffer: two storage objects (torch._C._storage_address differs) with one data
    # pointer, by which upstream groups tensors. A guard comparing storage objects would hit the unaliased entry.
    def shared_memory():
        buffer = bytearray(struct.pack("3f", 0.5, -1.25, 3.0))
        return (torch.frombuffer(buffer, dtype=torch.float32), torch.frombuffer(buffer, dtype=torch.float32)), {}

    separate = lambda: ((t(3), t(3, seed=1)), {})
    calls = [
        Call(separate),
        Call(shared_memory, expect_fast=False),  # aliased: another entry, as upstream
        Call(shared_memory, expect_fast=True),
        Call(separate, expect_fast=True),
    ]
    up, fast = run_differential(lambda a, b: a * b, calls)
    assert hits_misses(fast) == (2, 2)


def test_inference_mode_and_inference_tensors():
    def inference_tensor():
        with torch.inference_mode():
            x = t(3)
        return (x,), {}

    plain = lambda: ((t(3),), {})
    calls = [
        Call(plain, ctx=torch.no_grad),
        # other dispatch keys than the guard was built with: the slow tensor check decides (a hit, as upstream)
        Call(plain, ctx=torch.inference_mode, expect_fast=True),
        Call(inference_tensor, ctx=torch.no_grad, expect_fast=True),
        Call(plain, expect_fast=False),  # grad mode on: another entry
        Call(inference_tensor, ctx=torch.inference_mode, expect_fast=True),
    ]
    run_differential(lambda a: a * 2, calls)


def test_conjugate_and_negative_bits():
    complex_tensor = lambda: ((t(3, dtype=torch.complex64),), {})
    conjugated = lambda: ((t(3, dtype=torch.complex64).conj(),), {})
    negative = lambda: ((t(3, dtype=torch.complex64).conj().imag,), {})
    calls = [Call(complex_tensor), Call(conjugated, expect_fast=True), Call(complex_tensor, expect_fast=True)]
    run_differential(lambda a: a * 2, calls)
    calls = [Call(lambda: ((t(3),), {})), Call(negative, expect_fast=True), Call(negative, expect_fast=True)]
    run_differential(lambda a: a * 2, calls)


def test_tensors_without_strides_keep_upstreams_path():
    # Sparse compressed tensors (CSR, CSC, BSR, BSC) have no strides, which the guard's layout check pins: an entry
    # made for them keeps upstream's path instead of failing the call that made it. COO has strides and is guarded.
    eye = lambda: torch.eye(4) * 3
    kinds = {
        "csr": lambda: eye().to_sparse_csr(),
        "csc": lambda: eye().to_sparse_csc(),
        "bsr": lambda: eye().to_sparse_bsr((2, 2)),
        "bsc": lambda: eye().to_sparse_bsc((2, 2)),
        "coo": lambda: eye().to_sparse(),
    }
    for name, make in kinds.items():
        one = lambda: ((make(),), {})
        meta = lambda: ((torch.empty(4, 4, device="meta"),), {})  # another entry first: its guard misses on `make`
        guarded = name == "coo"
        calls = [Call(meta), Call(meta, expect_fast=True), Call(one, expect_fast=False), Call(one, expect_fast=guarded)]
        _, fast = run_differential(lambda a: a * 2, calls)
        unsupported = fast._lc_fastpath_state.unsupported
        assert (unsupported == []) if guarded else ("without strides" in unsupported[0]), (name, unsupported)


def test_an_entry_made_for_tensors_of_another_layout_behaves_as_upstream():
    # Upstream's alias detection reads strided tensors only, and its prologue does not check the layout: an entry made
    # for one sparse (COO) or MKL-DNN tensor passed twice, or for two of them, expects no aliasing, and a later call
    # with one strided tensor passed twice, or with two views of one storage, misses it. The guard's alias check
    # covers the positions that held strided tensors when it was built, so another layout must not pass its tensor
    # check.
    eye = lambda: torch.eye(4) * 3
    conversions = [torch.Tensor.to_sparse] + ([torch.Tensor.to_mkldnn] if torch.backends.mkldnn.is_available() else [])
    for convert in conversions:
        def same_tensor_twice():
            x = convert(eye())
            return (x, x), {}

        def two_tensors():
            return (convert(eye()), convert(eye() * 2)), {}

        def strided_twice():
            x = eye()
            return (x, x), {}

        def views_of_one_storage():
            storage = torch.arange(32.0)
            return (storage[:16].view(4, 4), storage[16:].view(4, 4)), {}

        for made_with, then in ((same_tensor_twice, strided_twice), (two_tensors, views_of_one_storage)):
            calls = [Call(made_with), Call(made_with, expect_fast=True), Call(then, expect_fast=False)]
            run_differential(lambda a, b: (a * 2, b * 3), calls)


STRIDED_NESTED_SCRIPT = """
import torch, thunder, thunder.fastpath

def outcome(f, *args):
    try:
        f(*args)
        result = "returned"
    except Exception as e:
        result = type(e).__name__
    return result, thunder.cache_hits(f), thunder.cache_misses(f)

def nested():
    return torch.nested.nested_tensor([torch.ones(3), torch.ones(3)])

for fastpath in (False, True):
    f = thunder.jit(lambda a, b: a * b, fastpath=fastpath)
    f(torch.ones(2, 3), torch.ones(2, 3))
    f(torch.ones(3, 3), torch.ones(3, 3))  # two shapes: the dispatcher's index by the first argument's shape too
    print(outcome(f, nested(), torch.ones(2, 3)), outcome(f, torch.ones(2, 3), nested()))
    module = thunder.jit(torch.nn.BatchNorm1d(3).eval(), fastpath=fastpath)
    module(torch.ones(2, 3))
    module.set_buffer("running_mean", nested())  # ThunderModule's public setter, read by the guard
    linear = torch.nn.Linear(3, 3)
    uses_linear = thunder.jit(lambda x: linear(x), fastpath=fastpath)  # reads the live module's parameters
    uses_linear(torch.ones(2, 3))
    linear.weight = torch.nn.Parameter(nested())
    print(outcome(module, torch.ones(2, 3)), outcome(uses_linear, torch.ones(2, 3)))
"""


def test_strided_nested_tensors_miss_like_upstream():
    # dynamo's TensorGuards reads each tensor's strides, and a strided nested tensor's raise a C++ error that aborts
    # the process there; the guard must not hand it one. In a subprocess, which such an abort would end.
    out = subprocess.run([sys.executable, "-c", STRIDED_NESTED_SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().split("\n")
    upstream, fast = lines[:2], lines[2:]
    assert upstream == fast and len(fast) == 2, out.stdout


def test_values_that_upstream_does_not_check_behave_as_upstream():
    # Upstream 0.2.6's prologue does not check a dtype argument's value (Lightning-AI/lightning-thunder#406), nor
    # an argument that the function only compares with `is None`: the float16 call below hits the float64 entry
    # and returns float64, and the tensor call hits the None entry and returns `a`, on both paths. The fast path
    # cannot be stricter: a miss falls back to upstream's lookup, which takes the same entry. The fix belongs in
    # upstream's prologue generation.
    with_dtype = lambda d: (lambda: ((t(3), d), {}))
    calls = [Call(with_dtype(torch.float64)), Call(with_dtype(torch.float64), expect_fast=True),
             Call(with_dtype(torch.float16), expect_fast=True), Call(with_dtype(torch.float64), expect_fast=True)]
    up, _ = run_differential(lambda a, d: a.to(d), calls)
    assert up(t(3), torch.float16).dtype is torch.float64  # upstream's stale entry; when this fails, upstream changed
    with_none = lambda o: (lambda: ((t(3), o), {}))
    calls = [Call(with_none(None)), Call(with_none(None), expect_fast=True), Call(with_none(t(3, seed=1)), expect_fast=True)]
    run_differential(lambda a, o: a if o is None else a + o, calls)
    # Nor an index that is None or Ellipsis (found by the OpInfo search's getitem, BENCHMARKS.md session 25): x[0]
    # after x[...] hits the Ellipsis entry and returns all of x.
    with_index = lambda k: (lambda: ((t(3, 4), k), {}))
    calls = [Call(with_index(Ellipsis)), Call(with_index(0), expect_fast=True), Call(with_index(None), expect_fast=True)]
    up, _ = run_differential(lambda a, k: a[k], calls)
    assert up(t(3, 4), 0).shape == (3, 4)  # upstream's stale entry; when this fails, upstream changed
    # Nor a bytes, set or range argument's contents, nor the order of a dict argument's keys (found by session 41's
    # argument_kinds_probe.py): each second call below hits the first call's entry.
    n_times = lambda a, s: a * len(s)
    for name, fn, first, second, stale in [
        ("bytes", n_times, b"ab", b"abc", 2 * t(3)),
        ("set", n_times, {1, 2}, {1, 2, 3}, 2 * t(3)),
        ("range", lambda a, r: a * sum(r), range(3), range(4), 3 * t(3)),
        ("dict order", lambda a, d: torch.cat([a, *d.values()]), {"b": t(1, seed=1), "c": t(1, seed=2)},
         {"c": t(1, seed=2), "b": t(1, seed=1)}, torch.cat([t(3), t(1, seed=1), t(1, seed=2)])),
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
    # a submodule's hooks or instance forward (found by session 40's inner_module_changes_probe.py), nor see its
    # parameters removed or parametrized (it reads them from the ThunderModule's copies made at jit time; session
    # 41's module_state_probe.py). Both paths keep running the entry traced before the change; like the values above,
    # this is upstream's to fix.
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


def test_device_argument():
    with_device = lambda d: (lambda: ((t(3), torch.device(d)), {}))
    calls = [Call(with_device("cpu")), Call(with_device("cpu"), expect_fast=True), Call(with_device("meta"), expect_fast=False)]
    run_differential(lambda a, d: a.to(d) * 2, calls)


# ------------------------------------------------------------------------------------------------ modules
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.scale = 2.0

    def forward(self, x):
        return self.bn(self.lin(x)) * self.scale


def test_module_parameters_buffers_attributes_and_train_eval():
    torch.manual_seed(0)
    net = Net()
    up = thunder.jit(copy.deepcopy(net), fastpath=False)
    fast = thunder.jit(copy.deepcopy(net), fastpath=True)
    x = t(3, 4)

    def both(expect_fast=None, ctx=nullcontext):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        with ctx():
            a, b = up(x), fast(x)
        assert_bitwise(a, b)
        assert_bitwise(dict(up.named_buffers()), dict(fast.named_buffers()))
        assert hits_misses(up) == hits_misses(fast)
        if expect_fast is not None:
            assert took_fast_path(fast) == expect_fast

    both()
    both(True)
    both(False, ctx=torch.no_grad)  # grad mode is part of the entry: a miss...
    both(True, ctx=torch.no_grad)  # ...then a hit
    for m in (up, fast):
        m.eval()
    both(False)
    both(True)
    for m in (up, fast):
        m.train()
        m._model.scale = 3.0  # a Python attribute the prologue checks
    both(False)
    both(True)
    with torch.no_grad():  # parameters updated in place
        for m in (up, fast):
            m._model.lin.weight.mul_(0.5)
    both(True)
    for m in (up, fast):  # parameters replaced
        m._model.lin.bias = torch.nn.Parameter(torch.zeros(4))
    both()
    for m in (up, fast):  # a parameter that no longer requires grad
        m._model.lin.weight.requires_grad_(False)
    both(False)
    both(True)


def test_module_call_honours_hooks_and_instance_forward():
    # FastThunderModule.__call__ skips nn.Module.__call__ only while that would do nothing but call forward.
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 2)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True)
    assert type(up) is thunder.core.module.ThunderModule and isinstance(fast, thunder.core.module.ThunderModule)
    assert repr(up) == repr(fast)
    x = t(3, 4)
    seen = []

    def both(expect_fast):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        assert_bitwise(up(x), fast(x))
        assert hits_misses(up) == hits_misses(fast)
        assert took_fast_path(fast) == expect_fast

    both(False)
    both(True)
    handles = [m.register_forward_pre_hook(lambda mod, args: seen.append(("pre", type(mod).__name__))) for m in (up, fast)]
    handles += [m.register_forward_hook(lambda mod, args, out: out * 2) for m in (up, fast)]  # changes the result
    both(True)  # the hooks run around a cache hit
    assert seen == [("pre", "ThunderModule"), ("pre", "FastThunderModule")]
    for h in handles:
        h.remove()
    global_hook = torch.nn.modules.module.register_module_forward_hook(lambda mod, args, out: out + 1)
    try:
        both(True)
    finally:
        global_hook.remove()
    for m in (up, fast):
        m.forward = lambda x: torch.zeros(1)  # an instance attribute: nn.Module.__call__ calls it
    assert_bitwise(up(x), fast(x))
    assert fast(x).shape == (1,)


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_module_call_honours_backward_hooks(device, executors):
    # Module backward hooks are set up by nn.Module.__call__ around forward (BackwardHook on inputs and outputs):
    # with one registered, the fast module must hand its calls to nn.Module.__call__.
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 2).to(device)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False, executors=executors)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True, executors=executors)

    def leaf_input(seed):
        return t(3, 4, seed=seed).to(device).requires_grad_()

    for _ in range(2):
        assert_bitwise(up(leaf_input(0)), fast(leaf_input(0)))
    seen = {id(up): [], id(fast): []}
    for m in (up, fast):
        m.register_full_backward_pre_hook(lambda mod, grad_out: seen[id(mod)].append("pre"))
        m.register_full_backward_hook(lambda mod, grad_in, grad_out: seen[id(mod)].append(tuple(grad_in[0].shape)))
    grads = []
    for m in (up, fast):
        x = leaf_input(1)
        m(x).sum().backward()
        grads.append(x.grad)
    assert_bitwise(grads[0], grads[1])
    assert seen[id(up)] == seen[id(fast)] == ["pre", (3, 4)]
    assert hits_misses(up) == hits_misses(fast)


def test_module_call_under_torch_jit_trace_and_with_a_replaced_forward_fn():
    # torch.jit.trace (which records module scopes through nn.Module.__call__, where the fast module sends such
    # calls) fails on Thunder 0.2.6 modules: the same error and the same cache statistics both ways.
    lin = torch.nn.Linear(4, 2)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True)
    x = t(3, 4)
    for _ in range(2):
        assert_bitwise(up(x), fast(x))
    errors = []
    for m in (up, fast):
        with pytest.raises(Exception) as info:
            torch.jit.trace(m, x)
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[0] == errors[1]
    assert hits_misses(up) == hits_misses(fast)
    assert_bitwise(up(x), fast(x))
    assert hits_misses(up) == hits_misses(fast)
    # A _forward_fn set after thunder.jit is what the module calls, as upstream's forward would.
    for m in (up, fast):
        m._forward_fn = lambda *args, **kwargs: ("replaced", args, kwargs)
    assert up(x, k=1) == fast(x, k=1) == ("replaced", (x,), {"k": 1})


@pytest.mark.skipif(not torch.distributed.is_available(), reason="needs torch.distributed")
def test_data_parallel_grad_sync_skipping_like_upstream(tmp_path):
    # thunder.distributed.ddp on a one-process gloo group: skip_data_parallel_grad_sync() is part of the cache
    # key (cache_info["no_grad_sync"]), so entering it must miss once and then hit, and leaving it must hit the
    # first entry again, with upstream's gradients.
    import thunder.distributed as dist
    import torch.distributed as tdist

    tdist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        linear, x = torch.nn.Linear(4, 3), t(2, 4)
        rows = {}
        for fastpath in (False, True):
            ddp = dist.ddp(thunder.jit(copy.deepcopy(linear), fastpath=fastpath))
            assert thunder.fastpath.is_fast(ddp) == fastpath
            rows[fastpath], served_fast = [], []
            for skip in (False, False, True, True, False):
                took_fast_path.stamp = thunder.compile_stats(ddp).last_trace_host_start
                with dist.skip_data_parallel_grad_sync() if skip else nullcontext():
                    ddp(x).sum().backward()
                served_fast.append(took_fast_path(ddp))
                rows[fastpath].append((hits_misses(ddp), [p.grad.clone() for p in ddp.parameters()]))
            assert served_fast == ([False, True, False, True, True] if fastpath else [False] * 5)
    finally:
        tdist.destroy_process_group()
    assert [r[0] for r in rows[True]] == [r[0] for r in rows[False]] == [(0, 1), (1, 1), (1, 2), (2, 2), (3, 2)]
    for (_, up), (_, fast) in zip(rows[False], rows[True]):
        assert_bitwise(up, fast)


def test_forward_and_backward_gradients():
    def make():
        return (t(3, 4, requires_grad=True), t(4, 4, seed=1, requires_grad=True)), {}

    def check_grads(f):
        (a, w), _ = make()
        out = f(a, w)
        out.sum().backward()
        return out.detach(), a.grad, w.grad

    f = lambda a, w: torch.tanh(a @ w) * 2
    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f, fastpath=True)
    for i in range(3):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        assert_bitwise(check_grads(up), check_grads(fast))
        assert hits_misses(up) == hits_misses(fast)
        if i:
            assert took_fast_path(fast)
    assert thunder.last_backward_traces(fast)


def autograd_graph(out):
    """The autograd nodes behind ``out``, breadth first: each node's name with the names of the nodes its edges
    lead to."""
    nodes, seen, queue = [], set(), [out.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append((node.name(), [fn.name() if fn is not None else None for fn, _ in node.next_functions]))
        queue.extend(fn for fn, _ in node.next_functions)
    return nodes


def saved_tensors_state(node):
    """How many tensors an autograd Function's node holds for its backward, or "released"."""
    try:
        return len(node.saved_tensors)
    except RuntimeError:  # "... saved tensors after they have already been freed"
        return "released"


class TrainingOutcome(NamedTuple):
    values: list  # each output's values and whether it requires grad
    graph: list  # autograd_graph of the first output
    grads: object  # the inputs' gradients, or the type of the exception that the backward raised
    lifetimes: tuple  # the first output's node's saved tensors after the backward; which outputs outlive the caller
    function: type  # the autograd Function behind the first output


def training_outcome(f, args, backward) -> TrainingOutcome:
    """One call of ``f`` and a backward of its first output by ``backward(out)``. An output outlives the caller's
    references when a reference cycle through the graph keeps it."""
    out = f(*args)
    first = out[0] if isinstance(out, tuple) else out
    graph, function = autograd_graph(first), first.grad_fn._forward_cls
    try:
        backward(first)
        result = [a.grad for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    except Exception as e:
        result = type(e)
    saved = saved_tensors_state(first.grad_fn)
    leaves = torch.utils._pytree.tree_leaves(out)
    values = [(x.detach().clone(), x.requires_grad) for x in leaves]
    outputs = [weakref.ref(x) for x in leaves if not any(x is a for a in args)]
    del out, first, leaves
    gc.collect()
    return TrainingOutcome(values, graph, result, (saved, [r() is not None for r in outputs]), function)


def _backward_in_anomaly_mode(out):
    with torch.autograd.set_detect_anomaly(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anomaly mode warns with the forward's traceback
        out.sum().backward()


def two_layers(x, w1, w2):
    h = torch.tanh(x @ w1)
    # the second matmul saves a view of an output (h); the outputs include an input as it is
    return h[:, :2] @ w2, h, x


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
@pytest.mark.parametrize(
    "backward",
    [
        lambda out: out.sum().backward(),
        lambda out: out.backward(torch.ones_like(out)),
        # a second backward of a graph that the first freed: the same error both ways
        lambda out: (out.sum().backward(), out.sum().backward()),
        # a retained graph keeps its saved tensors, as upstream's does
        lambda out: out.sum().backward(retain_graph=True),
        lambda out: (out.sum().backward(retain_graph=True), out.sum().backward()),
        # no backward: the saved view of an output must not keep the graph alive (pytorch/pytorch#94990)
        lambda out: None,
        # anomaly mode checks every gradient for NaN with .item(), the link tensor's on the meta device too: upstream
        # raises RuntimeError (found by session 41's autograd_context_probe.py), and so must the fast path
        _backward_in_anomaly_mode,
    ],
    ids=["sum", "ones", "twice", "retain_graph", "retain_graph_then_again", "no_backward", "anomaly_mode"],
)
def test_training_hits_connect_to_autograd_like_upstream(device, executors, backward):
    # Hits of an entry with a backward connect the outputs through thunder/fastpath/autograd.py's Functions (an
    # empty meta tensor links the two, where upstream makes it with torch.randn). Same outputs, graph (node names),
    # gradients or error, saved tensors released as upstream releases them, and the random state left alone.
    up = thunder.jit(two_layers, fastpath=False, executors=executors)
    fast = thunder.jit(two_layers, fastpath=True, executors=executors)

    def make():
        return (t(3, 4, seed=0, requires_grad=True).to(device), t(4, 5, seed=1, requires_grad=True).to(device),
                t(2, 3, seed=2, requires_grad=True).to(device))

    for i in range(3):
        rng = torch.get_rng_state()
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        inputs = lambda: [a.detach().requires_grad_() for a in make()]
        theirs, ours = (training_outcome(f, inputs(), backward) for f in (up, fast))
        if i:
            assert took_fast_path(fast)
            assert ours.function is thunder.fastpath.autograd.ThunderOutputFunction
        assert theirs.function is thunder.executors.torch_autograd.ThunderOutputFunction
        assert torch.equal(rng, torch.get_rng_state())
        assert_bitwise(theirs.values, ours.values)
        assert theirs.graph == ours.graph and theirs.graph[0][0] == "ThunderOutputFunctionBackward"
        if isinstance(theirs.grads, type):
            # the backward's own error (a second backward, anomaly mode), not one of this test's making
            assert theirs.grads is ours.grads is RuntimeError
        else:
            assert_bitwise(theirs.grads, ours.grads)
        assert theirs.lifetimes == ours.lifetimes and not any(theirs.lifetimes[1])
        assert hits_misses(up) == hits_misses(fast)


def test_training_hits_without_split_autograd_keep_upstreams_function():
    # thunderfx_disable_split_autograd (a compile option that ThunderFX sets): one Function, upstream's.
    up = thunder.jit(two_layers, fastpath=False, thunderfx_disable_split_autograd=True)
    fast = thunder.jit(two_layers, fastpath=True, thunderfx_disable_split_autograd=True)
    for _ in range(3):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        theirs, ours = (
            training_outcome(f, [t(3, 4, requires_grad=True), t(4, 5, seed=1, requires_grad=True), t(2, 3, seed=2)],
                             lambda out: out.sum().backward())
            for f in (up, fast)
        )
        assert_bitwise(theirs.values, ours.values)
        assert theirs.graph == ours.graph and theirs.graph[0][0] == "ThunderFunctionBackward"
        assert_bitwise(theirs.grads, ours.grads)
    assert took_fast_path(fast)
    assert ours.function is theirs.function is thunder.executors.torch_autograd.ThunderFunction


def without_header(trace) -> str:
    return str(trace).split("\n", 1)[1]  # the first line says how long the trace took


def test_statistics_match_upstream():
    f = lambda a: a.cos()
    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f, fastpath=True)
    for shape in [(2,), (2,), (3,), (2,), (3,)]:
        a = t(*shape)
        up(a), fast(a)
        assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls
        for traces in (thunder.last_traces, thunder.last_prologue_traces):
            assert without_header(traces(up)[-1]) == without_header(traces(fast)[-1])
        logs = [thunder.compile_stats(f).last_interpreter_log for f in (up, fast)]
        assert (logs[0] is None) == (logs[1] is None)
    assert hits_misses(fast) == (3, 2)


def test_jitted_callable_called_by_another_while_it_is_traced():
    # Tracing the outer function runs the inner jitted callable's Python code in Thunder's interpreter: it must
    # go straight to upstream's callable (which calls the inner function itself), so that the outer prologue does
    # not come to check the inner callable's changing state (call counters, timers) and miss on every call.
    observed, linear = {}, torch.nn.Linear(3, 3)
    for fastpath in (False, True):
        inner_fn = thunder.jit(lambda a: a.sin() * 2, fastpath=fastpath)
        inner_module = thunder.jit(copy.deepcopy(linear), fastpath=fastpath)
        tensorless = thunder.jit(lambda n: n * 2, fastpath=fastpath)
        a = t(2, 3)
        for inner in (inner_fn, inner_module):
            inner(a), inner(a)  # entries (and guards) exist before the outer function is traced
        tensorless(3), tensorless(3)
        outer = thunder.jit(lambda a, n: inner_module(inner_fn(a)) * tensorless(n) + 1, fastpath=fastpath)
        rows = []
        for n in (3, 3, 4, 3):
            out = outer(a, n)
            rows.append((out, [hits_misses(f) for f in (outer, inner_fn, inner_module, tensorless)]))
        observed[fastpath] = rows
    for (out_up, counts_up), (out_fast, counts_fast) in zip(observed[False], observed[True]):
        assert_bitwise(out_up, out_fast)
        assert counts_up == counts_fast
    assert observed[True][-1][1][0] == (2, 2)  # the outer function hit twice


class Scale:
    def __init__(self):
        self.k = 2.0

    def __call__(self, a):
        return a * self.k

    def shift(self, a):
        return a + self.k


def input_4x3():
    return (t(4, 3),), {}


def after(change, make=input_4x3):
    """A Call's inputs, made after ``change`` (which runs once per system, so it must set a value rather than add
    to one)."""

    def change_then_make():
        change()
        return make()

    return change_then_make


def set_k(obj):
    obj.k = 5.0


def set_weight(module):
    with torch.no_grad():
        module.weight.fill_(0.5)


@pytest.mark.parametrize(
    "make, mutate, served_fast",
    [
        (lambda: (s := Scale(), s), set_k, True),  # a callable object whose attribute changes
        (lambda: (s := Scale(), s.shift), set_k, True),  # a bound method
        (lambda: (None, functools.partial(lambda a, k: a * k, k=3.0)), lambda _: None, True),
        # A module's forward jitted as a function: its prologue looks the module up through get_thunder_module.
        (lambda: (m := torch.nn.Linear(3, 2), m.forward), set_weight, True),
    ],
    ids=["callable_object", "bound_method", "partial", "module_forward"],
)
def test_other_kinds_of_callables(make, mutate, served_fast):
    # Whatever the prologue reads through the function object (attributes, bound self, partial arguments,
    # parameters) decides hits as upstream's prologue does.
    obj, fn = make()  # one object for both systems: run_differential jits the same callable twice
    x = input_4x3
    calls = [
        Call(x), Call(x, expect_fast=served_fast),
        Call(after(lambda: mutate(obj))), Call(x, expect_fast=served_fast), Call(x, expect_fast=served_fast),
    ]
    _, fast = run_differential(fn, calls)
    assert thunder.cache_hits(fast) >= 3  # calls 1, 3 and 4 at least (2 too where the mutation keeps the key)
    assert bool(fast._lc_fastpath_state.unsupported) != served_fast


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
    assert all(n_fast >= n_up for n_fast, n_up in zip(fast, up)), (up, fast)


def test_module_forward_jitted_as_a_function():
    # thunder.jit(model.forward) reads the module through get_thunder_module (the module itself: there is no
    # ThunderModule for it): its training flag, replaced parameters and a parameter set to None decide hits and
    # misses as upstream's prologue decides them.
    m = torch.nn.Linear(3, 2)
    x = input_4x3
    frozen_weight = lambda: setattr(m, "weight", torch.nn.Parameter(t(2, 3, seed=2), requires_grad=False))
    calls = [
        Call(x), Call(x, expect_fast=True),
        Call(after(m.eval)), Call(x, expect_fast=True),
        Call(after(m.train), expect_fast=True),  # the first entry again
        Call(after(frozen_weight)), Call(x, expect_fast=True),
        Call(after(lambda: setattr(m, "bias", None))), Call(x, expect_fast=True),
    ]
    _, fast = run_differential(m.forward, calls)
    assert not fast._lc_fastpath_state.unsupported


_GLOBAL_LINEAR = torch.nn.Linear(3, 2)


def uses_global_linear(a):
    return _GLOBAL_LINEAR(a) * 2


class UsesGlobalLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(3, 3)

    def forward(self, a):
        return _GLOBAL_LINEAR(self.inner(a))


def test_functions_that_use_a_module_from_their_globals_or_closure():
    # The prologue reaches such a module through the function's globals or closure and get_thunder_module (for a
    # jitted module, next to its own ThunderModule); a module rebound, switched to eval or with a parameter
    # replaced decides hits and misses as upstream's.
    global _GLOBAL_LINEAR
    lin = torch.nn.Linear(3, 2)

    def uses_closure_linear(a):
        return lin(a) + 1

    x = input_4x3

    def rebind_global():
        global _GLOBAL_LINEAR
        torch.manual_seed(3)  # the same new module for both systems
        _GLOBAL_LINEAR = torch.nn.Linear(3, 5)

    frozen_weight = lambda: setattr(lin, "weight", torch.nn.Parameter(t(2, 3, seed=2), requires_grad=False))
    frozen_global = lambda: setattr(
        _GLOBAL_LINEAR, "weight", torch.nn.Parameter(t(*_GLOBAL_LINEAR.weight.shape, seed=2), requires_grad=False)
    )
    for fn, changes, module in [
        (uses_global_linear, [_GLOBAL_LINEAR.eval, rebind_global], False),
        (uses_closure_linear, [lin.eval, frozen_weight], False),
        (UsesGlobalLinear(), [lambda: _GLOBAL_LINEAR.eval(), frozen_global], True),
    ]:
        calls = [Call(x), Call(x, expect_fast=True)]
        for change in changes:
            calls += [Call(after(change)), Call(x, expect_fast=True)]
        _, fast = run_differential(fn, calls, module=module)
        assert not (fast._forward_fn if module else fast)._lc_fastpath_state.unsupported
    _GLOBAL_LINEAR = torch.nn.Linear(3, 2)


def test_external_cache_clear_is_noticed():
    f = lambda a: a * 3
    fast = thunder.jit(f)
    a = t(2)
    fast(a), fast(a)
    thunder.compile_stats(fast).interpreter_cache.clear()
    fast(a)
    assert thunder.cache_misses(fast) == 2


@contextlib.contextmanager
def cycle_collector_off():
    """Collects what earlier code left in reference cycles (upstream's tracing leaves some that hold the module it
    traced), then keeps the cycle collector off: what is freed inside was freed by reference counting alone, as
    soon as its last reference went."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _jitted_and_called(fastpath, device, executors):
    """A function (default cache and "symbolic values") and a module, jitted and called until each hits (the module
    with and without grad, backward included), and the module they wrap."""
    a = t(3).to(device)
    linear = torch.nn.Linear(3, 2).to(device)
    fn = thunder.jit(lambda x, y: x * y + 1, fastpath=fastpath, executors=executors)
    symbolic = thunder.jit(lambda x, n: x * n, fastpath=fastpath, executors=executors, cache="symbolic values")
    module = thunder.jit(linear, fastpath=fastpath, executors=executors)
    for n in (2, 3):
        fn(a, a.clone())
        symbolic(a, n)
        with torch.no_grad():
            module(a)
        module(a).sum().backward()
    assert (thunder.cache_hits(fn), thunder.cache_hits(symbolic), thunder.cache_hits(module)) == (1, 1, 2)
    return fn, symbolic, module, linear


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_jitted_callables_are_freed_without_the_cycle_collector_like_upstream(device, executors):
    # The fast callable, its guards and the module's weak reference must not keep a dropped callable (and the module
    # it wraps, with its parameters) alive where upstream's is freed. Upstream's callables make no reference cycle
    # (its test_jit_nn_module_cycle_leak checks that a jitted CUDA module's memory is freed as soon as the last
    # reference goes): the fast path's guards, generated hit functions and state must not make one either, or the
    # module would live on until the cycle collector ran. (Freed at once implies collected: this test replaces
    # test_jitted_callables_are_collected_like_upstream, which called gc.collect() first.)
    freed = {}
    for fastpath in (False, True):
        objects = _jitted_and_called(fastpath, device, executors)
        refs = [weakref.ref(x) for x in objects]
        with cycle_collector_off():
            del objects
            freed[fastpath] = [r() is None for r in refs]
    assert freed[True] == freed[False] == [True] * 4


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_inputs_and_outputs_are_freed_at_once_like_upstream(device, executors):
    # Guards and nvFuser regions are built from the call that used an entry (its arguments, its outputs): they must
    # keep neither, nor may hits keep later calls' tensors, while the jitted callables live on. Upstream frees each
    # call's tensors as soon as the last reference goes, so the cycle collector is off here. The strided calls hit
    # Thunder's cache with a layout that an nvFuser region has not seen (it prepares another definition); the calls
    # with an input that requires grad keep tensors for backward in their outputs' graph, freed with the outputs.
    calls = [  # (grad mode, kind of `a`, hit): misses compile, hits reuse
        (True, "contiguous", False), (True, "contiguous", True), (True, "strided", True),
        (False, "contiguous", False), (False, "strided", True), (False, "contiguous", True),
        (True, "requires_grad", False), (True, "requires_grad", True),
    ]
    n_hits = sum(hit for *_, hit in calls)
    freed = {}
    for fastpath in (False, True):
        fn = thunder.jit(lambda a, b: a * b + a, fastpath=fastpath, executors=executors)
        module = thunder.jit(torch.nn.Linear(3, 2).to(device), fastpath=fastpath, executors=executors)
        refs = []
        with cycle_collector_off():
            for grad, kind, _ in calls:
                a = t(6).to(device)[::2] if kind == "strided" else t(3, requires_grad=kind == "requires_grad").to(device)
                b = t(3, seed=1).to(device)
                with torch.set_grad_enabled(grad):
                    out, module_out = fn(a, b), module(a)
                refs += [weakref.ref(x) for x in (a, b, out, module_out)]
                del a, b, out, module_out
            freed[fastpath] = [r() is None for r in refs]
        assert hits_misses(fn) == hits_misses(module) == (n_hits, len(calls) - n_hits)
    assert freed[True] == freed[False] == [True] * 4 * len(calls)


def test_each_thread_hits_with_its_own_grad_mode():
    # Grad mode is thread-local: a hit must be decided by the calling thread's state. (Upstream 0.2.6 does not
    # pass this: each call ends with set_grad_enabled(cd.is_grad_enabled), a field that every thread's call
    # writes, so a thread under no_grad can leave a call with grad mode on. The fast path's hits do not write
    # or restore grad mode, so only the fast callable is checked here, against eager semantics.)
    def f(a, b):
        return a * b

    a, b = t(2, 3, requires_grad=True), t(2, 3)
    fast = thunder.jit(f, fastpath=True)
    fast(a, b)
    with torch.no_grad():
        fast(a, b)  # one entry per grad mode, made in this thread
    seen = {}

    def worker(grad):
        with torch.set_grad_enabled(grad):
            seen[grad] = [(fast(a, b).requires_grad, torch.is_grad_enabled()) for _ in range(300)]

    threads = [threading.Thread(target=worker, args=(g,)) for g in (False, True, False, True)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert seen[True] == [(True, True)] * 300 and seen[False] == [(False, False)] * 300
    assert thunder.cache_misses(fast) == 2  # no call in the threads compiled


def test_grad_mode_set_inside_the_function_like_upstream():
    # Upstream reflects a grad-mode change made by the function on the call that traces it (the compiling call),
    # not on its cache hits; the fast path's hits must leave grad mode as upstream's hits do.
    def switches_off(a):
        torch.set_grad_enabled(False)
        return a * 2

    def no_grad_block(a):
        with torch.no_grad():
            b = a * 2
        return b + a

    for fn, requires_grad in itertools.product((switches_off, no_grad_block), (True, False)):
        observed = {}
        for fastpath in (False, True):
            jitted = thunder.jit(fn, fastpath=fastpath)
            a = t(3, requires_grad=requires_grad)
            rows = []
            try:
                for _ in range(3):
                    torch.set_grad_enabled(True)
                    out = jitted(a)
                    rows.append((out.requires_grad, torch.is_grad_enabled(), hits_misses(jitted)))
            finally:
                torch.set_grad_enabled(True)
            observed[fastpath] = rows
        assert observed[True] == observed[False], (fn.__name__, requires_grad)
        assert observed[True][-1][2] == (2, 1)


def test_hit_leaves_grad_mode_as_it_is_only_on_the_guards_layout():
    # Grad mode on, no input requiring grad, and new outputs (no views, no inputs) in the call that the entry was
    # guarded after: on that call's sizes and strides the hit calls the computation in grad mode as it is; on any
    # other layout it switches grad mode off around it, as upstream (outputs may be views there: the next test).
    f = lambda a, b: a * b + a
    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f, fastpath=True)
    a, b = t(4, 6), t(4, 6, seed=1)
    transposed = t(6, 4, seed=2).t()
    run_both(up, fast, a, b)
    spy = RegionSpy(fast)
    assert spy.hit.region_call is None and spy.hit.grad_free_on_layout
    for x in [a, transposed, transposed, a]:
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        out_fast, out_up = fast(x, b), up(x, b)
        assert_bitwise(out_up, out_fast)
        assert autograd_facts(out_fast) == autograd_facts(out_up)
        assert hits_misses(up) == hits_misses(fast) and took_fast_path(fast)
        assert torch.is_grad_enabled()
    assert spy.computation_grad_modes == [True, False, False, True]


def in_place_outcome(out):
    """What a view's creation meta decides: whether an in-place update with an operand that requires grad is allowed
    (not for a view made with grad mode off)."""
    try:
        out.add_(torch.ones_like(out, requires_grad=True))
        return "allowed"
    except RuntimeError as e:
        return type(e)


def call_both_comparing_views(up, fast, x):
    """One call of each on ``x``, served by the fast path's guards: outputs, autograd facts, in-place outcome and
    hits/misses as upstream's. Returns the fast path's output tensors."""
    took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
    out_up, out_fast = up(x), fast(x)
    assert_bitwise(out_up, out_fast)
    assert autograd_facts(out_fast) == autograd_facts(out_up)
    assert hits_misses(up) == hits_misses(fast) and took_fast_path(fast)
    leaves_up, leaves_fast = torch.utils._pytree.tree_leaves(out_up), torch.utils._pytree.tree_leaves(out_fast)
    assert [in_place_outcome(o) for o in leaves_fast] == [in_place_outcome(o) for o in leaves_up]
    return leaves_fast


@pytest.mark.parametrize(
    "fn, grad_free, views",  # views: (contiguous input, some output is a view) as seen over the calls
    [
        (lambda a: a.reshape(-1), True, {(False, False), (True, True)}),  # copies the transposed input, views the other
        (lambda a: (a.sin(), a.t()), False, {(False, True), (True, True)}),
        (lambda a: a[1:] * 1, True, {(False, False), (True, False)}),
        (lambda a: a[1:], False, {(False, True), (True, True)}),
    ],
)
def test_outputs_that_are_views_keep_upstreams_grad_switch(fn, grad_free, views):
    # A view records the grad mode it was made in (its creation meta): an output that is a view must be made with
    # grad mode off, as upstream makes it. The entry is guarded after a call with the transposed input.
    up, fast = thunder.jit(fn, fastpath=False), thunder.jit(fn, fastpath=True)
    transposed = t(6, 4).t()
    contiguous = transposed.contiguous()
    run_both(up, fast, transposed)
    assert newest_hit(fast).grad_free_on_layout is grad_free
    seen = set()
    for x in [transposed, contiguous, transposed, contiguous]:
        leaves_fast = call_both_comparing_views(up, fast, x)
        seen.add((x is contiguous, any(o._is_view() for o in leaves_fast)))
    assert seen == views


def test_symbolic_values_keep_the_grad_switch():
    # Under "symbolic values" the guard does not pin ints, and an int can decide whether an output is a view: this
    # reshape copies the transposed input for n=2 and views it for n=4, with the same sizes and strides.
    f = lambda a, n: a.reshape(n, -1)
    up = thunder.jit(f, fastpath=False, cache="symbolic values")
    fast = thunder.jit(f, fastpath=True, cache="symbolic values")
    x = t(6, 4).t()
    views = []
    for n in (2, 2, 4, 4):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        out_up, out_fast = up(x, n), fast(x, n)
        assert_bitwise(out_up, out_fast)
        assert autograd_facts(out_fast) == autograd_facts(out_up)
        assert hits_misses(up) == hits_misses(fast)
        views.append(out_fast._is_view())
    assert took_fast_path(fast) and views == [False, False, True, True]
    assert not newest_hit(fast).grad_free_on_layout


def test_other_executors_keep_the_grad_switch():
    # Only the torch, Python and nvFuser executors' calls are taken to be the same in either grad mode.
    from thunder.executors.torch_compile import torch_compile_ex

    f = lambda a, b: (a * b + a).sin()
    up = thunder.jit(f, fastpath=False, executors=[torch_compile_ex])
    fast = thunder.jit(f, fastpath=True, executors=[torch_compile_ex])
    for _ in range(3):
        run_both(up, fast, t(8, 8), t(8, 8, seed=1))
    assert "torchcompile" in {getattr(b.sym.executor, "name", None) for b in thunder.last_traces(fast)[-1].bound_symbols}
    assert newest_hit(fast).grad_off and not newest_hit(fast).grad_free_on_layout


def test_grad_switch_kept_where_an_input_requires_grad_or_grad_mode_is_off():
    cases = [(lambda a: a * 2, (t(2, 3, requires_grad=True),)), (lambda a, b: a * b, (t(2, 3), t(2, 3, requires_grad=True)))]
    for fn, args in cases:
        fast = thunder.jit(fn, fastpath=True)
        fast(*args)
        assert not newest_hit(fast).grad_free_on_layout
    with torch.no_grad():  # nothing to switch
        fast = thunder.jit(lambda a: a * 2, fastpath=True)
        fast(t(2, 3))
        assert not newest_hit(fast).grad_off and not newest_hit(fast).grad_free_on_layout


# ------------------------------------------------------------------------------------------------ guards
def hit_source(fast):
    call = fast._forward_fn if isinstance(fast, torch.nn.Module) else fast
    return call._lc_fastpath_state.hits[0].source


def test_guard_tells_whether_computation_inputs_require_grad():
    # The hit may leave grad mode as it is only where no tensor input requires grad (nvfuser.py's single regions).
    for requires_grad in (False, True):
        fast = thunder.jit(lambda a, b: a * b)
        with torch.no_grad():
            fast(t(2, 2, requires_grad=requires_grad), t(2, 2))
        assert newest_hit(fast).guard.no_grad_inputs is not requires_grad


class TestGeneratedGuards(expecttest.TestCase):
    # Pinned sources of representative hit functions (guard, then the call); refresh with EXPECTTEST_ACCEPT=1
    # after a deliberate change.
    def test_function_guard(self):
        fast = thunder.jit(lambda a, b, n: a * b + n)
        fast(t(2, 3), t(2, 3), 3)
        self.assertExpectedInline(hit_source(fast), """\
def hit(args, kwargs):
    try:
        if not (len(args) == 3): return __MISS
        if not (len(kwargs) == 0): return __MISS
        a = args[0]
        b = args[1]
        i0 = args[2]
        if not (type(i0) is int and i0 == 3): return __MISS
        if __is_grad_enabled() is not True: return __MISS
        if __is_any_autocast_enabled():
            if __is_autocast_enabled('cuda') or __is_autocast_enabled('cpu'): return __MISS
            return __DECLINE
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if a.is_nested or b.is_nested: return __MISS
        __same_layout = __observed_layout.check(a, b)
        if not (__same_layout or __tensor_guards.check(a, b)):
            __verdict = __check_tensors_slowly((a, b,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
        if a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(): return __MISS
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    if __publication.entry is not __entry: __publish(__entry)
    if __same_layout:
        return __computation(a, b, )[0]
    __set_grad_enabled(False)
    try:
        return __computation(a, b, )[0]
    finally:
        __set_grad_enabled(True)
""")

    def test_module_guard(self):
        fast = thunder.jit(torch.nn.Linear(4, 2))
        with torch.no_grad():
            fast(t(3, 4))
        self.assertExpectedInline(hit_source(fast), """\
def hit(args, kwargs):
    try:
        if not (len(args) == 1): return __MISS
        if not (len(kwargs) == 0): return __MISS
        input = args[0]
        module = __thunder_module()
        __module_overrides_parameters = module._overrides_parameters
        t_weight = __module_overrides_parameters.get('weight', __null)
        if t_weight is __null:
            t_weight = module.get_parameter('weight')
            if t_weight.is_nested: return __MISS
        t_bias = __module_overrides_parameters.get('bias', __null)
        if t_bias is __null:
            t_bias = module.get_parameter('bias')
            if t_bias.is_nested: return __MISS
        __module_dict = module.__dict__
        __module_model = __module_dict['_modules']['_model']
        i0 = __module_dict['training'] if 'training' in __module_dict else __module_model.training
        if not (type(i0) is bool and i0 == True): return __MISS
        i1 = __module_dict['in_features'] if 'in_features' in __module_dict else __module_model.in_features
        if not (type(i1) is int and i1 == 4): return __MISS
        i2 = __module_dict['out_features'] if 'out_features' in __module_dict else __module_model.out_features
        if not (type(i2) is int and i2 == 2): return __MISS
        if __is_grad_enabled() is not False: return __MISS
        if __is_any_autocast_enabled():
            if __is_autocast_enabled('cuda') or __is_autocast_enabled('cpu'): return __MISS
            return __DECLINE
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if input.is_nested: return __MISS
        if not __tensor_guards.check(input, t_weight, t_bias):
            __verdict = __check_tensors_slowly((input, t_weight, t_bias,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    if __publication.entry is not __entry: __publish(__entry)
    return __computation(input, t_bias, t_weight, )[0]
""")

    def test_autocast_entry_hit(self):
        # An entry made under autocast: its state checked, the push that upstream makes per call, and the computation
        # through upstream's no_autocast decorator (autocast off inside), with grad mode as for any entry.
        fast = thunder.jit(lambda a, b: a @ b)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fast(t(2, 3), t(3, 2))
        hit = fast._lc_fastpath_state.hits[0]
        assert hit.computation is hit.entry.computation_fn.__wrapped__  # no_autocast's layer, not no_grad's
        assert hit.computation.__code__.co_name == "no_autocast_fn"
        self.assertExpectedInline(hit_source(fast), """\
def hit(args, kwargs):
    try:
        if not (len(args) == 2): return __MISS
        if not (len(kwargs) == 0): return __MISS
        a = args[0]
        b = args[1]
        if __is_grad_enabled() is not True: return __MISS
        if __is_autocast_enabled('cuda') is not False or __is_autocast_enabled('cpu') is not True: return __MISS
        if __get_autocast_dtype('cuda') is not torch.float16 or __get_autocast_dtype('cpu') is not torch.bfloat16: return __MISS
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if a.is_nested or b.is_nested: return __MISS
        __same_layout = __observed_layout.check(a, b)
        if not (__same_layout or __tensor_guards.check(a, b)):
            __verdict = __check_tensors_slowly((a, b,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
        if a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(): return __MISS
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    if __publication.entry is not __entry: __publish(__entry)
    __autocast_push('cpu', __autocast_dtype, True)
    if __same_layout:
        return __computation(a, b, )[0]
    __set_grad_enabled(False)
    try:
        return __computation(a, b, )[0]
    finally:
        __set_grad_enabled(True)
""")


def test_guard_declines_tensor_subclasses():
    fast = thunder.jit(lambda a: a * 2)
    fast(t(3))
    guard = fast._lc_fastpath_state.hits[0].guard.check
    assert guard((t(3),), {}) not in (MISS, DECLINE)
    assert guard((torch.nn.Parameter(t(3), requires_grad=False),), {}) is DECLINE
    assert guard((t(4),), {}) is MISS


# dynamo's TensorGuards is private torch API. The first test pins what the guards rely on, so that a torch release
# that changes it fails here; the next one checks the fallback for a torch without it.
@pytest.mark.skipif(thunder.fastpath.guard.TensorGuards is None, reason="this torch lacks dynamo's TensorGuards")
def test_tensor_guards_behave_as_the_guards_rely_on():
    from torch._C._dynamo.guards import TensorGuards

    a = t(2, 3)
    any_strides = TensorGuards(a, dynamic_dims_sizes=[[2, 3]], dynamic_dims_strides=[[None, None]])
    pinned_strides = TensorGuards(a, dynamic_dims_sizes=[[2, 3]], dynamic_dims_strides=[[3, 1]])
    symbolic_dim = TensorGuards(a, dynamic_dims_sizes=[[None, 3]], dynamic_dims_strides=[[None, None]])
    transposed = t(3, 2).t()
    assert any_strides.check(t(2, 3, seed=1)) and any_strides.check(transposed)
    assert pinned_strides.check(t(2, 3, seed=1)) and not pinned_strides.check(transposed)
    assert symbolic_dim.check(t(5, 3)) and not symbolic_dim.check(t(5, 4))
    for other in (t(3, 2), t(2, 3, 1), t(2, 3, dtype=torch.float64), t(2, 3, requires_grad=True),
                  torch.nn.Parameter(t(2, 3), requires_grad=False), torch.zeros(2, 3, device="meta")):
        assert not any_strides.check(other), other
    with torch.inference_mode():
        assert not any_strides.check(torch.zeros(2, 3))  # other dispatch keys
    two = TensorGuards(a, t(2, 3), dynamic_dims_sizes=[[2, 3]] * 2, dynamic_dims_strides=[[None, None]] * 2)
    assert two.check(t(2, 3), t(2, 3)) and not two.check(a, a)  # one tensor twice: check_tensors_slowly decides


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_entries_keep_upstreams_path_without_tensor_guards(monkeypatch, device, executors):
    monkeypatch.setattr(thunder.fastpath.guard, "TensorGuards", None)
    monkeypatch.setattr(thunder.fastpath.nvfuser, "TensorGuards", None)
    with_tensor = lambda n: Call(lambda: ((t(3).to(device), n), {}))
    f = lambda x, n: x.sin() * n
    up, fast = thunder.jit(f, fastpath=False, executors=executors), thunder.jit(f, executors=executors)
    served = [compare_call(up, fast, with_tensor(n), i) for i, n in enumerate([2, 2, 3, 2, 3])]
    assert served == [False] * 5 and hits_misses(fast) == (3, 2)
    state = fast._lc_fastpath_state
    assert state.hits == () and all("TensorGuards" in reason for reason in state.unsupported)
    if "nvfuser" in executors:  # regions keep upstream's wrapper
        from thunder.fastpath.nvfuser import FusionRegion

        assert fusion_regions(fast) and all(type(r) is not FusionRegion for r in fusion_regions(fast))
    # An entry without tensor inputs needs no tensor guard and still gets its guard.
    numbers_only = lambda n: Call(lambda: ((n,), {}))
    up, fast = thunder.jit(lambda n: torch.ones(2) * n, fastpath=False), thunder.jit(lambda n: torch.ones(2) * n)
    served = [compare_call(up, fast, numbers_only(n), i) for i, n in enumerate([2, 2, 3, 2])]
    assert served == [False, True, False, True]


def test_tensor_matches_agrees_with_the_prologues_check():
    # After TensorGuards says no, a guard decides MISS with tensor_matches: it must pass exactly where the
    # prologue's check_tensor_metadata passes (None in a guard's shape is a symbolic dim, a NumberProxy upstream).
    from thunder.core.proxies import IntegerProxy
    from thunder.core.trace import TraceCtx, tracectx
    from thunder.executors.pythonex import _check_tensor_shape_and_metadata_impl as prologue_check
    from thunder.fastpath.guard import check_tensors_slowly, tensor_matches

    with tracectx(TraceCtx()):
        symbolic = IntegerProxy(name="s0", value=2)
    candidates = [
        torch.ones(2, 3), torch.ones(3, 3), torch.ones(1, 3), torch.ones(2, 4), torch.ones(2, 2), torch.ones(2),
        torch.ones(2, 3, 1),
        torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3, requires_grad=True), torch.ones(2, 3, device="meta"),
        torch.nn.Parameter(torch.ones(2, 3), requires_grad=False), torch.ones(3, 2).T, [[1.0] * 3] * 2, None, 2.0,
    ]
    specs = [
        ((2, 3), "cpu", torch.float32, False), ((None, 3), "cpu", torch.float32, False),
        ((2, None), "cpu", torch.float64, False), ((2, 3), "cpu", torch.float32, True),
        ((2, 3), "meta", torch.float32, False),
    ]
    outcomes = set()
    for (index, (shape, *rest)), candidate in itertools.product(enumerate(specs), candidates):
        try:
            prologue_check(candidate, tuple(symbolic if d is None else d for d in shape), *rest)
            expected = True
        except AssertionError:
            expected = False
        assert tensor_matches(candidate, shape, *rest) is expected, (shape, rest, candidate)
        verdict = check_tensors_slowly((candidate,), [(shape, *rest)], [(torch.Tensor, torch.strided)])
        if not expected:
            assert verdict is MISS
        elif type(candidate) is torch.Tensor:
            assert verdict is True
        else:
            assert verdict is DECLINE  # the prologue passes a Parameter where the guard was built with a tensor
        outcomes.add((index, expected))
    assert len(outcomes) == 2 * len(specs)  # each spec passes for some candidate and fails for others


def test_calls_by_shape_picks_the_position_with_most_shapes_and_keeps_entries_without_one_in_order():
    from thunder.fastpath.cache_hit import calls_by_shape

    def hit(name, shapes):  # shapes: {position: shape}, a position being an index into args or a keyword
        return types.SimpleNamespace(call=name, guard=types.SimpleNamespace(arg_shapes=shapes))

    # Newest first, as the dispatcher holds them. Position 0 has two shapes, position 1 and "k" one each.
    hits = [
        hit("a1", {0: (2, 3), 1: (7,)}),
        hit("n1", {1: (7,)}),  # no shape required of args[0]
        hit("b", {0: (4,), 1: (7,)}),
        hit("a2", {0: (2, 3), "k": (1,)}),
        hit("n2", {}),
    ]
    position, by_shape, unshaped = calls_by_shape(hits)
    assert position == 0
    assert by_shape == {(2, 3): ("a1", "n1", "a2", "n2"), (4,): ("n1", "b", "n2")}
    assert unshaped == ("n1", "n2")
    # A keyword with more shapes than any index.
    keyword = [hit("x1", {"x": (1,), 0: (5,)}), hit("x2", {"x": (2,), 0: (6,)}), hit("x3", {"x": (3,), 0: (5,)})]
    position, by_shape, unshaped = calls_by_shape(keyword)
    assert (position, by_shape[(2,)], unshaped) == ("x", ("x2",), ())
    # A tie goes to the position found first (newest entry first, each in its prologue's order).
    assert calls_by_shape(keyword[:2])[0] == "x"
    # One shape per position: nothing for an older entry's hit to skip, so no index.
    assert calls_by_shape(hits[:2] + hits[3:]) is None
    assert calls_by_shape([]) is None


def hit_functions_run(f, *args, **kwargs) -> int:
    """How many generated hit functions (guards with their hits) one call of the fast callable ``f`` ran."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        code = frame.f_code
        count += event == "call" and code.co_filename == "thunder.fastpath.hit" and code.co_name == "hit"

    sys.setprofile(profile)
    try:
        f(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return count


def test_older_entries_hit_without_the_guards_of_other_shapes():
    def f(a, b):
        return a * b if isinstance(a, torch.Tensor) else b + a

    shapes = [(2, 3), (3, 3), (4,), (2, 3)]
    calls = [Call(lambda s=s: ((t(*s), t(*s)), {})) for s in shapes]  # three entries
    calls += [Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3)), {}))]  # the same shape again, other dtype
    calls += [Call(lambda: ((2.0, t(3)), {})), Call(lambda: ((2.0, t(3)), {}))]  # no tensor first: no shape required
    calls += [Call(lambda s=s: ((t(*s), t(*s)), {}), expect_fast=True) for s in shapes]
    calls += [
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3)), {}), expect_fast=True),
        Call(lambda: ((t(5), t(5)), {}), expect_fast=False),  # a shape no entry requires: a miss
        Call(lambda: ((t(5), t(5)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3), None), {})),  # raises like upstream
        Call(lambda: ((), {"a": t(3, 3), "b": t(3, 3)}), expect_fast=False),  # keywords: a new entry
        Call(lambda: ((), {"a": t(3, 3), "b": t(3, 3)}), expect_fast=True),
        Call(lambda: ((t(3, 3), t(3, 3)), {}), expect_fast=True),
    ]
    up, fast = run_differential(f, calls)
    state = fast._lc_fastpath_state
    # Newest first: (3, 3) by keywords, (5,), the float first argument, (2, 3) float64, (4,), (3, 3), (2, 3).
    # args[1] has five shapes (the float entry's (3,) too), args[0] four: the index is by args[1].
    assert len(state.hits) == 7 and state.shape_index[0] == 1
    # A hit of an older entry skips the guards that require another shape of args[1], not those of the entries
    # that require none (the keywords).
    hits, misses = hits_misses(fast)
    assert hit_functions_run(fast, t(2, 3), t(2, 3)) == 3  # keywords, (2, 3) float64, then the hit
    assert hit_functions_run(fast, t(4), t(4)) == 2
    assert hit_functions_run(fast, 2.0, t(3)) == 2
    assert hits_misses(fast) == (hits + 3, misses)
    # No entry requires (6,): only the guards of those that require no shape, then upstream's path (a miss).
    assert hit_functions_run(fast, t(6), t(6)) == 1
    assert hits_misses(fast) == (hits + 3, misses + 1)


def test_the_index_follows_the_argument_whose_shape_changes():
    # The shape that tells entries apart may come with a keyword or as another argument than the first: the index
    # is by the position where the entries require the most shapes.
    def f(a, b=None):
        return a + 1 if b is None else a * b.sum()

    sizes = [1, 2, 3, 4]
    for by_keyword in (False, True):
        def make(n, by_keyword=by_keyword):
            return ((), {"a": t(2), "b": t(n)}) if by_keyword else ((t(2), t(n)), {})

        calls = [Call(functools.partial(make, n)) for n in sizes]
        calls += [Call(lambda: ((t(2),), {}), expect_fast=False)]  # no b: requires no shape there
        calls += [Call(functools.partial(make, n), expect_fast=True) for n in sizes]
        calls += [Call(lambda: ((t(2),), {}), expect_fast=True), Call(functools.partial(make, 5), expect_fast=False)]
        up, fast = run_differential(f, calls)
        state = fast._lc_fastpath_state
        # Newest first: b of size 5, no b, 4, 3, 2, 1.
        assert state.shape_index[0] == ("b" if by_keyword else 1)
        args, kwargs = make(1)
        assert hit_functions_run(fast, *args, **kwargs) == 2  # the entry without b, then the oldest entry's hit
        assert hit_functions_run(fast, t(2)) == 2  # no b: every entry in turn up to the hit
        args, kwargs = make(7)
        hits, misses = hits_misses(fast)
        assert hit_functions_run(fast, *args, **kwargs) == 1  # a shape that no entry requires: a miss
        assert hits_misses(fast) == (hits, misses + 1)

    # A module called with a keyword: the same index (FastThunderModule.__call__ passes the keywords on).
    linear = torch.nn.Linear(4, 2)
    calls = [Call(lambda n=n: ((), {"input": t(n, 4)})) for n in sizes]
    calls += [Call(lambda n=n: ((), {"input": t(n, 4)}), expect_fast=True) for n in sizes]
    up, fast = run_differential(linear, calls, module=True)
    assert fast._forward_fn._lc_fastpath_state.shape_index[0] == "input"
    assert hit_functions_run(fast._forward_fn, input=t(1, 4)) == 1


# ------------------------------------------------------------------------------------------------ generated sequences
st = hypothesis.strategies


@hypothesis.settings(deadline=None, max_examples=25, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.lists(
        st.tuples(
            st.sampled_from([(2,), (3,), (2, 2)]),
            st.sampled_from([torch.float32, torch.float64]),
            st.booleans(),  # grad mode
            st.sampled_from([1, 2, 2.0, -1]),
            st.booleans(),  # column-major strides (2-D shapes): the reshape below copies instead of viewing
            st.sampled_from([None, torch.bfloat16, torch.float16]),  # CPU autocast's dtype, None: no autocast
        ),
        min_size=1,
        max_size=8,
    )
)
def test_generated_call_sequences(sequence):
    def make(shape, dtype, n, column_major):
        a = t(*shape, dtype=dtype)
        return (a.t().contiguous().t() if column_major and a.dim() == 2 else a, n), {}

    def context(grad, autocast):
        @contextlib.contextmanager
        def ctx():
            with torch.set_grad_enabled(grad), torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
                yield

        return ctx

    calls = [
        Call(functools.partial(make, shape, dtype, n, column_major), ctx=context(grad, autocast))
        for shape, dtype, grad, n, column_major, autocast in sequence
    ]
    # the dot product: autocast's rules apply to it
    f = lambda a, n: (a.exp() * n - a, a.reshape(-1), a.reshape(-1) @ a.reshape(-1))
    up, fast = run_differential(f, calls)
    assert thunder.compile_data(up).autocast_stack.stack == thunder.compile_data(fast).autocast_stack.stack


@hypothesis.settings(deadline=None, max_examples=25, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.sampled_from(["constant values", "symbolic values"]),
    st.lists(
        st.tuples(
            st.sampled_from([(2,), (3,)]),  # a
            st.sampled_from([None, (2,), (3,), (2, 2)]),  # b, None: left out
            st.booleans(),  # a and b by keyword
        ),
        min_size=1,
        max_size=10,
    ),
)
def test_generated_call_sequences_with_shapes_at_several_positions(cache, sequence):
    # The dispatcher skips the guards that require another shape at the position where the entries' shapes differ
    # most (an index into args or a keyword), which changes as entries come: outputs, hits and misses as upstream's.
    def f(a, b=None):
        return a.sum() * 2 if b is None else a.sum() + b.sum()

    def make(a_shape, b_shape, by_keyword):
        values = {"a": t(*a_shape)} if b_shape is None else {"a": t(*a_shape), "b": t(*b_shape, seed=1)}
        return ((), values) if by_keyword else (tuple(values.values()), {})

    calls = [Call(functools.partial(make, *step)) for step in sequence]
    run_differential(f, calls + calls, cache=cache)


@hypothesis.settings(deadline=None, max_examples=25, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.lists(
        st.tuples(
            st.sampled_from(["new", "a", "a as 2x2"]),  # b: a tensor of its own, a itself, or a viewed as 2x2
            st.sampled_from(["new", "a", "b", "view of a"]),  # c: the same, b itself, or another view of a's storage
        ),
        min_size=1,
        max_size=8,
    )
)
def test_generated_argument_identities(sequence):
    # One tensor at several positions (an entry guard checks it once and the others by identity, session 42) and views
    # of one storage, some of another shape, in turn with tensors of their own; b is updated in place, so aliasing
    # changes the results.
    def make(b_kind, c_kind):
        base = t(8)
        a = base[:4] if c_kind == "view of a" else t(4)
        b = {"new": t(4, seed=1), "a": a, "a as 2x2": a.view(2, 2)}[b_kind]
        c = {"new": t(4, seed=2), "a": a, "b": b, "view of a": base[4:]}[c_kind]
        return (a, b, c), {}

    def f(a, b, c):
        b.add_(1)
        return a * 2 + b.reshape(-1) * c

    run_differential(f, [Call(functools.partial(make, *kinds)) for kinds in sequence])


# ------------------------------------------------------------------------------------------------ nvFuser regions
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
    """Stands for upstream's FusionDefinitionWrapper: one definition per input descriptor."""

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
    # One tensor in two places (since session 43): checked once, and the other place by identity. Two tensors of that
    # layout, or one tensor in the other two places, are another layout: the descriptors, then the right definition.
    up = FakeWrapper()
    region = FusionRegion(up, (0, 1, 2), 3)
    other = torch.randn(4, 6)[:, ::2]  # the layout of strided, another tensor
    calls = [((strided, strided, param), False), ((strided, strided, param), True), ((contiguous, contiguous, param), False),
             ((contiguous, contiguous, param), True), ((strided, strided, param), True),  # back to the first layout
             ((strided, other, param), False), ((strided, other, param), True), ((strided, strided, param), True),
             ((param, strided, param), False), ((param, strided, param), True)]
    for args, direct in calls:
        up.log.clear()
        out = region(*args)
        log, want = list(up.log), up.built[up.to_descriptors(args)]
        assert out == want.key and region.last_used is want
        assert log[:1] == [("fec", want.key)] if direct else log[:2] == [("descriptors",), ("fd", want.key)]
    # Other tensor subclasses and nv_skip_cache keep upstream's behaviour.
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
@hypothesis.given(st.lists(st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS + ["same"])), min_size=1, max_size=10))
def test_fusion_region_generated_layout_sequences_without_a_gpu(sequence):
    # Whatever the order of layouts, the region runs the definition that upstream's descriptor cache gives for
    # the call's inputs ("same": the first tensor passed twice).
    from thunder.fastpath.nvfuser import FusionRegion

    layouts = layouts_4x6()
    up = FakeWrapper()
    region = FusionRegion(up, (0, 2), 3)
    for first, second in sequence:
        a = layouts[first]
        args = (a, 2.0, a if second == "same" else layouts[second])
        assert region(*args) == up.built[up.to_descriptors(args)].key


def fusion_regions(jitted):
    trace = thunder.last_traces(jitted)[-1]
    return [v for k, v in trace.python_ctx().items() if k.startswith("nvFusion")]


def nvfuser_pair(fn, **options):
    up = thunder.jit(fn, fastpath=False, executors=["nvfuser"], **options)
    fast = thunder.jit(fn, fastpath=True, executors=["nvfuser"], **options)
    return up, fast


def run_both(up, fast, *args):
    out_up, out_fast = up(*args), fast(*args)
    assert_bitwise(out_up, out_fast)
    assert hits_misses(up) == hits_misses(fast)
    return out_fast


class Issue1657(torch.nn.Module):
    def forward(self, x):
        y = torch.sin(x)
        return (y, y.sum() > 0)


def issue1657_input(device="cuda"):
    """The input of Lightning-AI/lightning-thunder#1657: a 400×400 int64 view with strides (800, 2)."""
    return torch.testing.make_tensor((319999,), dtype=torch.int64, device=device, low=3, high=9).as_strided((400, 400), (800, 2))


@requires_nvfuser
def test_nvfuser_issue1657_graph_and_region_type():
    from thunder.fastpath.nvfuser import FusionRegion

    x = issue1657_input()
    up, fast = nvfuser_pair(Issue1657())
    for _ in range(3):
        out = run_both(up, fast, x)
    torch.testing.assert_close(out[0], torch.sin(x))
    assert [type(r) for r in fusion_regions(fast)] == [FusionRegion]
    assert all(type(r) is not FusionRegion for r in fusion_regions(up))


def newest_hit(jitted):
    call = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    return call._lc_fastpath_state.hits[0]


def autograd_facts(out):
    """What grad mode can change about outputs: requires_grad, grad_fn, view-ness and a view's creation mode."""
    get_meta = torch._C._autograd._get_creation_meta
    tensors = [x for x in torch.utils._pytree.tree_leaves(out) if isinstance(x, torch.Tensor)]
    return [
        (x.requires_grad, x.grad_fn is None, x._is_view(), str(get_meta(x)) if x._is_view() else None) for x in tensors
    ]


class RegionSpy:
    """Counts the calls of a hit's computation and records grad mode at each of them and at each call of its
    region's executor."""

    def __init__(self, jitted):
        self.hit = newest_hit(jitted)
        self.computation_calls, self.computation_grad_modes, self.grad_modes = 0, [], []
        namespace = self.hit.call.__globals__
        computation = namespace["__computation"]

        def counting(*args):
            self.computation_calls += 1
            self.computation_grad_modes.append(torch.is_grad_enabled())
            return computation(*args)

        namespace["__computation"] = counting

    def watch_executor(self):
        # The region replaces `prepared` on every new layout: wrap the current executor before each call.
        region = self.hit.region_call.region
        if region.prepared is not None and not getattr(region.prepared[1], "spied", False):
            layout, execute, *rest = region.prepared

            def recording(args):
                self.grad_modes.append(torch.is_grad_enabled())
                return execute(args)

            recording.spied = True
            region.prepared = (layout, recording, *rest)


@requires_nvfuser
def test_nvfuser_single_region_hit_calls_the_executor_itself():
    # The #1657 graph under grad mode, its input not requiring grad: a hit calls the region's executor from the hit
    # function, in grad mode as it is; a new layout goes through the computation (switch, then the region's own
    # preparation), after which hits call the executor again. Outputs and their autograd facts as upstream's.
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
    @requires_nvfuser
    def test_issue1657_hit(self):
        x = torch.testing.make_tensor((400, 400), dtype=torch.int64, device="cuda", low=3, high=9)
        fast = thunder.jit(Issue1657(), fastpath=True, executors=["nvfuser"])
        fast(x)
        self.assertExpectedInline(hit_source(fast), """\
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
    if __publication.entry is not __entry: __publish(__entry)
    __prepared = __region.prepared
    if __prepared is not None and __prepared[2] and (__same_layout and __prepared is __entry_layout or __prepared[0].check(x)):
        __out = __prepared[1]((x, ))
        return (__out[0], __out[1], )
    __set_grad_enabled(False)
    try:
        return tuple(__computation(x, ))
    finally:
        __set_grad_enabled(True)
""")


class CountingLayoutCheck:
    """Stands in for a region's layout check (a TensorGuards) and counts its calls."""

    def __init__(self, layout):
        self.layout, self.calls = layout, 0

    def check(self, *tensors):
        self.calls += 1
        return self.layout.check(*tensors)


@requires_nvfuser
def test_nvfuser_hit_skips_the_region_layout_check_only_on_the_entry_layout():
    # The guard checks strides too (`__same_layout`): while they are those of the call that made the entry and the
    # region still holds the layout it prepared for that call, the hit skips the region's check. Another layout is
    # checked by the region (and prepared through the computation); back on the first one, the region takes up its
    # first layout again (the same tuple), and the hit skips the check again. Outputs, hits and misses as upstream's.
    x = issue1657_input()
    contiguous = x.contiguous()
    up, fast = nvfuser_pair(Issue1657())
    run_both(up, fast, x)
    hit = newest_hit(fast)
    region = hit.region_call.region
    assert hit.entry_layout is region.prepared is not None
    assert region.first_prepared is region.prepared
    # Count the checks of the entry's layout (the hit's and the region's): the same tuple in the region and the hit.
    counting = CountingLayoutCheck(region.prepared[0])
    spied = (counting, *region.prepared[1:])
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


@requires_nvfuser
def test_nvfuser_region_outputs_that_are_views_keep_the_grad_switch():
    # A view records the grad mode it was made in (its creation meta): an output that nvFuser returns as a view
    # must be made with grad off, as upstream makes it. The region tells per layout whether its outputs are views.
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
            assert hit.region_call.region.prepared[2] is False
            assert spy.grad_modes == [False] * 3 and spy.computation_calls == 3
    assert exercised, "no candidate made a single-region computation with a view output: this test proves nothing"


@pytest.mark.parametrize("device, executors", DEVICES_AND_EXECUTORS)
def test_computations_keep_grad_mode_only_on_the_guards_layout(device, executors):
    # The grad-mode rule of computations that are not one region call, on the torch executor and on CUDA with
    # nvFuser regions around a sort (which nvFuser leaves to torch). Each entry is guarded after a call with a
    # transposed input; a contiguous one may turn a copy into a view (the reshape). Where the first call's outputs were all new, grad mode stays on
    # inside the computation on the transposed input and is switched off on the contiguous one; else always off.
    candidates = [
        lambda a: torch.sort(a.sin(), dim=-1)[0].cos(),
        lambda a: (torch.sort(a.sin(), dim=-1)[0].cos(), a.reshape(-1)),
        lambda a: (torch.sort(a.sin(), dim=-1)[0], a.t()),
        lambda a: (torch.sort(a.sin(), dim=-1)[0] * 2)[1:],
    ]
    grad_free_seen = []
    for fn in candidates:
        up = thunder.jit(fn, fastpath=False, executors=executors)
        fast = thunder.jit(fn, fastpath=True, executors=executors)
        transposed = torch.randn(6, 4, device=device).t()
        contiguous = transposed.contiguous()
        first = run_both(up, fast, transposed)
        new_outputs = not any(o._is_view() or o is transposed for o in torch.utils._pytree.tree_leaves(first))
        spy = RegionSpy(fast)
        assert spy.hit.region_call is None and spy.hit.grad_free_on_layout is new_outputs
        for x in [transposed, contiguous, transposed, contiguous]:
            call_both_comparing_views(up, fast, x)
            assert torch.is_grad_enabled()
        assert spy.computation_grad_modes == ([True, False, True, False] if new_outputs else [False] * 4)
        grad_free_seen.append(new_outputs)
        assert bool(fusion_regions(fast)) is (executors == ["nvfuser"])
    # Both sides of the rule exercised: the first candidate makes new outputs, the third returns a view of its input.
    assert grad_free_seen[0] and not grad_free_seen[2]


@requires_nvfuser
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


@requires_nvfuser
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


@requires_nvfuser
def test_nvfuser_region_gets_one_tensor_in_two_places():
    # f(x, x): the region of the entry made for it gets one tensor in two input places. Since session 43 its layout
    # check takes the tensor once and the other place by identity; before, it computed the descriptors on every call.
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
    repeated = [r for r in regions if r.prepared is not None and type(r.prepared[0]) is _LayoutWithRepeats]
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


@requires_nvfuser
@hypothesis.settings(deadline=None, max_examples=12, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    st.lists(st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(["contiguous", "transposed", "same"])), min_size=1, max_size=6)
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


@requires_nvfuser
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


@requires_nvfuser
def test_nvfuser_scalar_inputs():
    f = lambda a, s: a * s + 1
    up, fast = nvfuser_pair(f, cache="symbolic values")
    a = torch.randn(6, device="cuda")
    for s in [2.0, 3.0, 3.0, -1.5]:
        out = run_both(up, fast, a, s)
        torch.testing.assert_close(out, f(a, s))


@requires_nvfuser
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


@requires_nvfuser
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


@requires_nvfuser
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


@requires_nvfuser
def test_nvfuser_options_reach_the_executor_like_upstream(monkeypatch):
    # nv_enable_options / nv_disable_options reach nvFuser as keyword arguments of FusionExecutorCache.execute, which
    # upstream's fd.execute passes on every call. The fast path binds them to the executor once per layout: every
    # call (the first, hits, another layout, back to the first) must pass what upstream's passes.
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
        monkeypatch.setattr(nvfuser_direct, "FusionExecutorCache", lambda fusion: RecordingExecutorCache(real, calls, fusion))
        outputs = [jitted(x) for x in (a, a, a, transposed, transposed, a)]
        keywords = [(kw.get("device"), kw.get("_enable_options", []), kw.get("_disable_options", [])) for kw in calls]
        seen[fastpath] = outputs, hits_misses(jitted), keywords, [type(r) for r in fusion_regions(jitted)]
    assert_bitwise(seen[True][0], seen[False][0])
    assert seen[True][1] == seen[False][1] == (5, 1)
    assert seen[True][2] == seen[False][2]  # device and options, call by call
    assert [options for _, *options in seen[False][2]] == [[["fuse_matmul"], ["kernel_reuse"]]] * 6
    assert seen[True][3] == [FusionRegion]


@requires_nvfuser
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


@requires_nvfuser
def test_nvfuser_save_fake_inputs_keeps_upstreams_wrapper():
    # nv_save_fake_inputs: fd.execute records fake copies of the inputs (for repro scripts) on every call, so the
    # regions of such callables keep upstream's wrapper, hits included.
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


@requires_nvfuser
def test_nvfuser_cache_hit_makes_no_cuda_or_distributed_python_calls():
    x = issue1657_input()
    up, fast = nvfuser_pair(Issue1657())
    for _ in range(2):
        up(x), fast(x)
    modules = ("torch.cuda", "torch.distributed")
    assert calls_into(modules, up, x), "the upstream path should make such calls (else this test proves nothing)"
    assert calls_into(modules, fast, x) == []
