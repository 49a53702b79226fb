"""Guards built from the cache entries of jitted callables, held against the entries' prologues."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
import torch

import thunder
from thunder.fastpath.guard import build_guard
from thunder.fastpath.guard_steps import DECLINE, MISS


def prologue_inputs(jitted, entry, args, kwargs):
    """What the entry's prologue returns for a call, run as Thunder's cache lookup runs it (with the cache info that
    populate_cache_info fills); None where it fails."""
    token = thunder._cache_info_ctx.set({})
    try:
        thunder.compile_data(jitted).populate_cache_info(thunder._get_cache_info(), *args, **kwargs)
        inputs, _ = entry.prologue_fn(*args, **kwargs)
        return inputs
    except Exception:
        return None
    finally:
        thunder._cache_info_ctx.reset(token)


x, y = torch.randn(2, 3), torch.randn(2, 3)
# (function, jit's cache option, the call that makes the entry, other calls); a call is (args, kwargs, context).
GUARD_CASES = {
    "tensors": (
        lambda a, b: a * b + 1,
        "constant values",
        ((x, y), {}, nullcontext),
        [
            ((torch.randn(2, 3), torch.randn(2, 3)), {}, nullcontext),
            ((torch.randn(3, 2).T, y), {}, nullcontext),  # other strides: the prologue does not check them
            ((torch.randn(3, 3), y), {}, nullcontext),
            ((x, torch.randn(2, 3, dtype=torch.float64)), {}, nullcontext),
            ((x, torch.randn(2, 3, requires_grad=True)), {}, nullcontext),
            ((x, 2.0), {}, nullcontext),
            ((x, x), {}, nullcontext),  # aliased inputs
            ((x,), {"b": y}, nullcontext),
            ((x, y), {}, torch.no_grad),
            ((x, y), {}, lambda: torch.autocast("cpu", dtype=torch.bfloat16)),
        ],
    ),
    "numbers": (
        lambda a, n, s: a * n if s == "mul" else a + n,
        "constant values",
        ((x, 2, "mul"), {}, nullcontext),
        [
            ((y, 2, "mul"), {}, nullcontext),
            ((x, 3, "mul"), {}, nullcontext),
            ((x, 2.0, "mul"), {}, nullcontext),
            ((x, True, "mul"), {}, nullcontext),
            ((x, 2, "add"), {}, nullcontext),
        ],
    ),
    "containers": (
        lambda xs, *, scale: xs[0] * scale + xs[-1],
        "constant values",
        (([x, y],), {"scale": 0.5}, nullcontext),
        [
            (([y, x],), {"scale": 0.5}, nullcontext),
            (([x, y, x],), {"scale": 0.5}, nullcontext),
            (((x, y),), {"scale": 0.5}, nullcontext),
            (([x, y],), {"scale": 2.0}, nullcontext),
            (([x, y],), {}, nullcontext),
        ],
    ),
    "symbolic_values": (
        lambda a, n: a * n,
        "symbolic values",
        ((x, 2), {}, nullcontext),
        [
            ((x, 5), {}, nullcontext),
            ((x, 2.5), {}, nullcontext),
            ((torch.randn(3, 3), 2), {}, nullcontext),
            ((torch.randn(2, 3, dtype=torch.float64), 2), {}, nullcontext),
            ((x, "2"), {}, nullcontext),
        ],
    ),
}


@pytest.mark.parametrize("case", GUARD_CASES)
def test_guard_agrees_with_the_prologue(case):
    # A guard built from one call of an entry passes exactly where the entry's prologue passes and then gives the
    # computation the same inputs; where the prologue fails, the guard misses (or declines: Thunder's lookup decides).
    fn, cache, first, others = GUARD_CASES[case]
    jitted = thunder.jit(fn, cache=cache)
    args, kwargs, context = first
    with context():
        jitted(*args, **kwargs)
    entry = thunder.compile_stats(jitted).interpreter_cache[-1]
    guard = build_guard(entry.prologue_traces[-1], args, kwargs, compile_data=thunder.compile_data(jitted))
    verdicts = []
    for args, kwargs, context in (first, *others):
        with context():
            expected = prologue_inputs(jitted, entry, args, kwargs)
            verdict = guard.check(args, kwargs)
        if expected is None:
            assert verdict is MISS or verdict is DECLINE, (args, kwargs, context)
            verdicts.append("miss" if verdict is MISS else "declined")
        else:
            assert isinstance(verdict, tuple), (args, kwargs, context, verdict)
            inputs = verdict[0]
            assert all(
                a is b or (not isinstance(a, torch.Tensor) and a == b) for a, b in zip(inputs, expected, strict=True)
            )
            verdicts.append("pass")
    assert verdicts[0] == "pass" and "miss" in verdicts, verdicts


def test_guard_declines_tensor_subclasses():
    # The prologue passes a Parameter where the entry was made for a tensor; the guard, built with the tensor's exact
    # type, cannot tell that it would: it declines.
    jitted = thunder.jit(lambda a: a * 2)
    x = torch.randn(3)
    jitted(x)
    entry = thunder.compile_stats(jitted).interpreter_cache[-1]
    guard = build_guard(entry.prologue_traces[-1], (x,), {}, compile_data=thunder.compile_data(jitted)).check
    assert guard((torch.randn(3),), {}) not in (MISS, DECLINE)
    assert guard((torch.nn.Parameter(torch.randn(3), requires_grad=False),), {}) is DECLINE
    assert guard((torch.randn(4),), {}) is MISS


# The prologue checks that Python's executor implements and that guards do not translate: an entry whose prologue
# has one keeps Thunder's path, and says why.
UNTRANSLATED_CHECKS = {"check_bool_conversion", "check_empty", "check_python_repr", "check_type"}


def test_every_prologue_check_is_translated_or_known_not_to_be():
    # A check that Thunder adds to its prologues must not silently send every entry that has it to Thunder's path:
    # this fails until it is translated (prologue_checks._HANDLERS) or listed above.
    from thunder.executors.pythonex import ex
    from thunder.fastpath.prologue_checks import _HANDLERS

    checks = {name for name in ex.opmap if name.startswith("check_")}
    assert checks - set(_HANDLERS) == UNTRANSLATED_CHECKS
