"""Guards built from the cache entries of jitted callables, held against the entries' prologues, and the pieces of
torch and Thunder that the guards rely on."""

from __future__ import annotations

import itertools
from contextlib import nullcontext

import pytest
import torch

import thunder
from thunder.fastpath.guard import build_guard
from thunder.fastpath.guard_steps import DECLINE, MISS
from thunder.fastpath.tensor_checks import TensorGuards


def t(*shape, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).requires_grad_(requires_grad)


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


x, y = t(2, 3), t(2, 3, seed=1)
# (function, jit's cache option, the call that makes the entry, other calls); a call is (args, kwargs, context).
GUARD_CASES = {
    "tensors": (
        lambda a, b: a * b + 1,
        "constant values",
        ((x, y), {}, nullcontext),
        [
            ((t(2, 3, seed=2), t(2, 3, seed=3)), {}, nullcontext),
            ((t(3, 2).T, y), {}, nullcontext),  # other strides: the prologue does not check them
            ((t(3, 3), y), {}, nullcontext),
            ((x, t(2, 3, dtype=torch.float64)), {}, nullcontext),
            ((x, t(2, 3, requires_grad=True)), {}, nullcontext),
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
            ((t(3, 3), 2), {}, nullcontext),
            ((t(2, 3, dtype=torch.float64), 2), {}, nullcontext),
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
    jitted(t(3))
    entry = thunder.compile_stats(jitted).interpreter_cache[-1]
    guard = build_guard(entry.prologue_traces[-1], (t(3),), {}, compile_data=thunder.compile_data(jitted)).check
    assert guard((t(3),), {}) not in (MISS, DECLINE)
    assert guard((torch.nn.Parameter(t(3), requires_grad=False),), {}) is DECLINE
    assert guard((t(4),), {}) is MISS


# NOTE: dynamo's TensorGuards is private torch API. This test pins what the guards rely on, so that a torch release
# that changes it fails here; without it, entries keep Thunder's path.
@pytest.mark.skipif(TensorGuards is None, reason="this torch lacks dynamo's TensorGuards")
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
    for other in (
        t(3, 2),
        t(2, 3, 1),
        t(2, 3, dtype=torch.float64),
        t(2, 3, requires_grad=True),
        torch.nn.Parameter(t(2, 3), requires_grad=False),
        torch.zeros(2, 3, device="meta"),
    ):
        assert not any_strides.check(other), other
    with torch.inference_mode():
        assert not any_strides.check(torch.zeros(2, 3))  # other dispatch keys
    two = TensorGuards(a, t(2, 3), dynamic_dims_sizes=[[2, 3]] * 2, dynamic_dims_strides=[[None, None]] * 2)
    assert two.check(t(2, 3), t(2, 3)) and not two.check(a, a)  # one tensor twice: check_tensors_slowly decides


def test_tensor_matches_agrees_with_the_prologues_check():
    # After TensorGuards says no, a guard decides MISS with tensor_matches: it must pass exactly where the
    # prologue's check_tensor_metadata passes (None in a guard's shape is a symbolic dim, a NumberProxy Thunder).
    # The explaining form (explain_tensors) must reach the same verdict as the fast form's check_tensors_slowly.
    from thunder.core.proxies import IntegerProxy
    from thunder.core.trace import TraceCtx, tracectx
    from thunder.executors.pythonex import _check_tensor_shape_and_metadata_impl as prologue_check
    from thunder.fastpath.tensor_checks import check_tensors_slowly, explain_tensors, tensor_matches

    with tracectx(TraceCtx()):
        symbolic = IntegerProxy(name="s0", value=2)
    candidates = [
        torch.ones(2, 3),
        torch.ones(3, 3),
        torch.ones(1, 3),
        torch.ones(2, 4),
        torch.ones(2, 2),
        torch.ones(2),
        torch.ones(2, 3, 1),
        torch.ones(2, 3, dtype=torch.float64),
        torch.ones(2, 3, requires_grad=True),
        torch.ones(2, 3, device="meta"),
        torch.nn.Parameter(torch.ones(2, 3), requires_grad=False),
        torch.ones(3, 2).T,
        [[1.0] * 3] * 2,
        None,
        2.0,
    ]
    specs = [
        ((2, 3), "cpu", torch.float32, False),
        ((None, 3), "cpu", torch.float32, False),
        ((2, None), "cpu", torch.float64, False),
        ((2, 3), "cpu", torch.float32, True),
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
        explained = explain_tensors((candidate,), [(shape, *rest)], [(torch.Tensor, torch.strided)], ["x"])
        assert (True if explained is None else explained[0]) is verdict, (shape, rest, candidate, explained)
        if not expected:
            assert verdict is MISS
        elif type(candidate) is torch.Tensor:
            assert verdict is True
        else:
            assert verdict is DECLINE  # the prologue passes a Parameter where the guard was built with a tensor
        outcomes.add((index, expected))
    assert len(outcomes) == 2 * len(specs)  # each spec passes for some candidate and fails for others


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


def test_cache_info_keys_are_those_upstream_fills():
    # The guard reads torch's state for the cache-info keys that it knows (state_checks.CACHE_INFO_KEYS); a key that
    # Thunder adds makes the guard generator refuse the entry, and this test fail first.
    from thunder.fastpath.state_checks import CACHE_INFO_KEYS

    f = thunder.jit(lambda a: a + 1)
    populate = thunder.compile_data(f).populate_cache_info
    seen = set()
    for autocast in (False, True):
        cache_info = {}
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            populate(cache_info, t(2))
        seen |= set(cache_info)
    assert seen == set(CACHE_INFO_KEYS)
