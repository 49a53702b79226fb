"""Global state in the cache key (grad mode, autocast, the default dtype and device), and where a hit may leave grad
mode as it is instead of switching it off as Thunder does.
"""

from __future__ import annotations

import contextlib
import itertools

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    Call,
    RegionSpy,
    assert_bitwise,
    autograd_facts,
    float64_default,
    fusion_regions,
    hits_misses,
    newest_hit,
    run_both,
    run_differential,
    t,
    took_fast_path,
)


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


@contextlib.contextmanager
def autocast_flag(device):
    """Turns one device's autocast flag on (thread-local state that torch keeps also for devices it does not have)."""
    before = torch.is_autocast_enabled(device)
    torch.set_autocast_enabled(device, True)
    try:
        yield
    finally:
        torch.set_autocast_enabled(device, before)


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_hits_under_autocast(executor, device, _):
    # An entry made under CPU's or CUDA's autocast takes the fast path on hits: the guard checks the autocast state
    # that Thunder's cache info holds, the hit calls the entry's functions through Thunder's no_autocast decorator
    # (autocast off inside; grad mode switched as for any entry, not by the torch.no_grad() decorator) and pushes onto
    # the compile data's autocast stack as Thunder's populate_cache_info does on each call under autocast.
    other = "cuda" if device == "cpu" else "cpu"
    bf16 = lambda: torch.autocast(device, dtype=torch.bfloat16)
    fp16 = lambda: torch.autocast(device, dtype=torch.float16)

    @contextlib.contextmanager
    def both(first, second):
        with first(), second():
            yield

    make = lambda: ((t(8, 8).to(device), t(8, 8, seed=1).to(device)), {})
    # The autocast and grad mode that the caller finds after the call, inside its context.
    and_state = lambda f: (
        lambda *a, **k: (
            f(*a, **k),
            torch.is_autocast_enabled(device),
            torch.get_autocast_dtype(device),
            torch.is_grad_enabled(),
        )
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
        # CPU's and CUDA's autocast together: Thunder raises before trying an entry, and so does the fast path
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag(other)), expect_fast=False),
        # An autocast that Thunder does not look at, besides this device's: the bf16 entry, as Thunder finds it
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag("xpu")), expect_fast=True),
        Call(make, ctx=lambda: autocast_flag("xpu"), expect_fast=False),  # alone: Thunder decides
    ]
    # mse_loss: the torch executor calls torch's, which autocast would compute in float32 (Thunder's trace: bfloat16)
    f = lambda a, b: ((a @ b).relu() + a, torch.nn.functional.mse_loss(a @ b, b @ a))
    up, fast = run_differential(f, calls, executors=executor.executors_list())
    stacks = [list(thunder.compile_data(jitted).autocast_stack.stack) for jitted in (up, fast)]
    assert stacks[0] == stacks[1] and len(stacks[0]) == 9  # the calls under one autocast, each pushed once
    assert thunder.compile_stats(fast).calls == 13 and hits_misses(fast) == (8, 4)


def test_default_dtype():
    make = lambda: ((t(3),), {})
    calls = [
        Call(make),
        Call(make, expect_fast=True),
        Call(make, ctx=float64_default, expect_fast=False),
        Call(make, ctx=float64_default, expect_fast=True),
        Call(make, expect_fast=True),
    ]
    run_differential(lambda a: a + torch.arange(3), calls)


def test_grad_mode_set_inside_the_function_like_upstream():
    # Thunder reflects a grad-mode change made by the function on the call that traces it (the compiling call),
    # not on its cache hits; the fast path's hits must leave grad mode as Thunder's hits do.
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
    # other layout it switches grad mode off around it, as Thunder (outputs may be views there: the next test).
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
    hits/misses as Thunder's. Returns the fast path's output tensors."""
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
    # grad mode off, as Thunder makes it. The entry is guarded after a call with the transposed input.
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
    assert "torchcompile" in {
        getattr(b.sym.executor, "name", None) for b in thunder.last_traces(fast)[-1].bound_symbols
    }
    assert newest_hit(fast).made_with_grad and not newest_hit(fast).grad_free_on_layout


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_computations_keep_grad_mode_only_on_the_guards_layout(executor, device, _):
    # The grad-mode rule of computations that are not one region call, on the torch executor and on CUDA with
    # nvFuser regions around a sort (which nvFuser leaves to torch). Each entry is guarded after a call with a
    # transposed input; a contiguous one may turn a copy into a view (the reshape). Where the first call's outputs
    # were all new, grad mode stays on inside the computation on the transposed input and is switched off on the
    # contiguous one; else always off.
    candidates = [
        lambda a: torch.sort(a.sin(), dim=-1)[0].cos(),
        lambda a: (torch.sort(a.sin(), dim=-1)[0].cos(), a.reshape(-1)),
        lambda a: (torch.sort(a.sin(), dim=-1)[0], a.t()),
        lambda a: (torch.sort(a.sin(), dim=-1)[0] * 2)[1:],
    ]
    grad_free_seen = []
    for fn in candidates:
        up = thunder.jit(fn, fastpath=False, executors=executor.executors_list())
        fast = thunder.jit(fn, fastpath=True, executors=executor.executors_list())
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
        assert bool(fusion_regions(fast)) is (executor.name == "nvfuser")
    # Both sides of the rule exercised: the first candidate makes new outputs, the third returns a view of its input.
    assert grad_free_seen[0] and not grad_free_seen[2]
