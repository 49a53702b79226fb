"""Cache hit functions and the global state in the cache key: grad mode, autocast, the default dtype and device."""

from __future__ import annotations

import contextlib

import pytest
import torch

import thunder
from thunder.tests.cache_hit_harness import (
    EXECUTORS,
    Call,
    hits_misses,
    run_differential,
    served_by_hit_fn,
    t,
)
from thunder.tests.framework import NOTHING, instantiate


@contextlib.contextmanager
def float64_default():
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)


@contextlib.contextmanager
def default_device(device):
    """``torch.set_default_device`` inside (not a device context manager, which is a TorchFunctionMode)."""
    torch.set_default_device(device)
    try:
        yield
    finally:
        torch.set_default_device(None)


def test_grad_mode_autocast_default_dtype_and_device():
    # One entry per state; each call meets its own. torch.ones: the default dtype and device matter.
    make = lambda: ((t(4, 4), t(4, 4, seed=1)), {})
    bf16 = lambda: torch.autocast("cpu", dtype=torch.bfloat16)
    calls = [
        Call(make),
        Call(make, expect_fast=True),
        Call(make, ctx=torch.no_grad, expect_fast=False),
        Call(make, ctx=torch.no_grad, expect_fast=True),
        Call(make, expect_fast=True),
        Call(make, ctx=bf16, expect_fast=False),
        Call(make, ctx=bf16, expect_fast=True),
        Call(make, ctx=lambda: torch.device("cpu"), expect_fast=True),
        Call(make, ctx=lambda: default_device("cpu"), expect_fast=True),
        Call(make, ctx=float64_default, expect_fast=False),
        Call(make, ctx=float64_default, expect_fast=True),
        Call(make, expect_fast=True),
    ]
    ref, fast = run_differential(lambda a, b: (a @ b).relu() + torch.ones(4), calls)
    assert hits_misses(fast) == (8, 4)
    # Factory functions alone follow the default device.
    make = lambda: ((t(3),), {})
    calls = [
        Call(make),
        Call(make, ctx=lambda: torch.device("meta"), expect_fast=False),
        Call(make, ctx=lambda: torch.device("meta"), expect_fast=True),
        Call(make, ctx=lambda: default_device("meta"), expect_fast=True),
        Call(make, expect_fast=True),
    ]
    run_differential(lambda a: (a * 2, torch.zeros(3), torch.arange(3)), calls)


@contextlib.contextmanager
def autocast_flag(device):
    """Turns one device's autocast flag on (thread-local state, kept also for devices that torch does not have)."""
    before = torch.is_autocast_enabled(device)
    torch.set_autocast_enabled(device, True)
    try:
        yield
    finally:
        torch.set_autocast_enabled(device, before)


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_hits_under_autocast(executor, device, _):
    # A hit under autocast pushes onto the compile data's autocast stack as populate_cache_info does, and leaves the
    # caller's autocast and grad mode as they were.
    other = "cuda" if device == "cpu" else "cpu"
    bf16 = lambda: torch.autocast(device, dtype=torch.bfloat16)
    fp16 = lambda: torch.autocast(device, dtype=torch.float16)

    @contextlib.contextmanager
    def both(first, second):
        with first(), second():
            yield

    make = lambda: ((t(8, 8).to(device), t(8, 8, seed=1).to(device)), {})
    and_state = lambda f: (
        lambda *a: (
            f(*a),
            torch.is_autocast_enabled(device),
            torch.get_autocast_dtype(device),
            torch.is_grad_enabled(),
        )
    )
    calls = [
        Call(make, ctx=bf16, expect_fast=False),
        Call(make, ctx=bf16, expect_fast=True, through=and_state),
        Call(make, ctx=fp16, expect_fast=False),
        Call(make, ctx=fp16, expect_fast=True, through=and_state),
        Call(make, ctx=bf16, expect_fast=True),  # the older entry
        Call(make, ctx=lambda: torch.autocast(device, enabled=False), expect_fast=False),
        Call(make, expect_fast=True),
        Call(make, ctx=bf16, expect_fast=True, through=and_state),
        Call(make, ctx=lambda: both(bf16, torch.no_grad), expect_fast=False),
        Call(make, ctx=lambda: both(bf16, torch.no_grad), expect_fast=True, through=and_state),
        # CPU's and CUDA's autocast together: the cache lookup raises before it tries an entry
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag(other)), expect_fast=False),
        # An autocast that Thunder does not read, besides this device's: the bf16 entry
        Call(make, ctx=lambda: both(bf16, lambda: autocast_flag("xpu")), expect_fast=True),
        Call(make, ctx=lambda: autocast_flag("xpu"), expect_fast=True),  # alone: the entry made with autocast off
    ]
    # mse_loss: the torch executor calls torch's, which autocast would compute in float32 (Thunder's trace: bfloat16)
    f = lambda a, b: ((a @ b).relu() + a, torch.nn.functional.mse_loss(a @ b, b @ a))
    ref, fast = run_differential(f, calls, executors=executor.executors_list())
    stacks = [list(thunder.compile_data(jitted).autocast_stack.stack) for jitted in (ref, fast)]
    assert stacks[0] == stacks[1] and len(stacks[0]) == 9  # each call under one autocast pushes once
    assert thunder.compile_stats(fast).calls == 13 and hits_misses(fast) == (8, 4)


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("switches", ["set_grad_enabled", "no_grad_block"])
def test_grad_mode_set_inside_the_function(switches, requires_grad):
    # The call that traces the function reflects a grad-mode change made by it; its hits do not.
    def set_grad_enabled(a):
        torch.set_grad_enabled(False)
        return a * 2

    def no_grad_block(a):
        with torch.no_grad():
            b = a * 2
        return b + a

    fn = {"set_grad_enabled": set_grad_enabled, "no_grad_block": no_grad_block}[switches]
    observed = {}
    for fastpath in (False, True):
        jitted = thunder.jit(fn, fastpath=fastpath)
        a = t(3, requires_grad=requires_grad)
        rows = []
        try:
            for _ in range(3):
                torch.set_grad_enabled(True)
                out = jitted(a)
                rows.append((out.requires_grad, torch.is_grad_enabled(), hits_misses(jitted), served_by_hit_fn(jitted)))
        finally:
            torch.set_grad_enabled(True)
        observed[fastpath] = rows
    assert [row[:3] for row in observed[True]] == [row[:3] for row in observed[False]]
    assert [row[3] for row in observed[True]] == [False, True, True] and observed[True][-1][2] == (2, 1)
