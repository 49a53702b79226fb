"""The checks a guard is made of, against what they stand for: dynamo's ``TensorGuards`` and the per-tensor check
against the prologue's ``check_tensor_metadata``, the global-state checks against ``populate_cache_info``."""

from __future__ import annotations

import contextlib
import itertools

import pytest
import torch

import thunder
from thunder.fastpath.codegen import Constants, compile_function, function_source
from thunder.fastpath.guard_steps import DECLINE, MISS, fast_lines
from thunder.fastpath.state_checks import GlobalStateChecks
from thunder.fastpath.tensor_checks import TensorGuards


# NOTE: dynamo's TensorGuards is private torch API. This test pins what the guards rely on, so that a torch release
# that changes it fails here; without it, entries keep Thunder's path.
@pytest.mark.skipif(TensorGuards is None, reason="this torch lacks dynamo's TensorGuards")
def test_tensor_guards_behave_as_the_guards_rely_on():
    from torch._C._dynamo.guards import TensorGuards

    a = torch.randn(2, 3)
    any_strides = TensorGuards(a, dynamic_dims_sizes=[[2, 3]], dynamic_dims_strides=[[None, None]])
    pinned_strides = TensorGuards(a, dynamic_dims_sizes=[[2, 3]], dynamic_dims_strides=[[3, 1]])
    symbolic_dim = TensorGuards(a, dynamic_dims_sizes=[[None, 3]], dynamic_dims_strides=[[None, None]])
    transposed = torch.randn(3, 2).t()
    assert any_strides.check(torch.randn(2, 3)) and any_strides.check(transposed)
    assert pinned_strides.check(torch.randn(2, 3)) and not pinned_strides.check(transposed)
    assert symbolic_dim.check(torch.randn(5, 3)) and not symbolic_dim.check(torch.randn(5, 4))
    for other in (
        torch.randn(3, 2),
        torch.randn(2, 3, 1),
        torch.randn(2, 3, dtype=torch.float64),
        torch.randn(2, 3, requires_grad=True),
        torch.nn.Parameter(torch.randn(2, 3), requires_grad=False),
        torch.zeros(2, 3, device="meta"),
    ):
        assert not any_strides.check(other), other
    with torch.inference_mode():
        assert not any_strides.check(torch.zeros(2, 3))  # other dispatch keys
    two = TensorGuards(a, torch.randn(2, 3), dynamic_dims_sizes=[[2, 3]] * 2, dynamic_dims_strides=[[None, None]] * 2)
    # One tensor twice: check_tensors_slowly decides.
    assert two.check(torch.randn(2, 3), torch.randn(2, 3)) and not two.check(a, a)


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
            populate(cache_info, torch.randn(2))
        seen |= set(cache_info)
    assert seen == set(CACHE_INFO_KEYS)


@contextlib.contextmanager
def default_dtype(dtype):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


STATES = {
    "default": contextlib.nullcontext,
    "no_grad": torch.no_grad,
    "autocast_bfloat16": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
    "autocast_float16": lambda: torch.autocast("cpu", dtype=torch.float16),
    "float64_default": lambda: default_dtype(torch.float64),
    "meta_default_device": lambda: torch.device("meta"),
}


@pytest.mark.parametrize("made_under", STATES)
def test_state_checks_agree_with_populate_cache_info(made_under):
    # The checks of an entry made under one state pass in every state where populate_cache_info records the same
    # values, and miss (or decline: the lookup decides) in every other.
    f = thunder.jit(lambda a: a + 1)  # populate_cache_info holds its compile data weakly
    populate = thunder.compile_data(f).populate_cache_info

    def recorded(state):
        cache_info = {}
        with STATES[state]():
            populate(cache_info, torch.randn(2))
        return cache_info

    expected = recorded(made_under)
    namespace = {"torch": torch, "__MISS": MISS, "__DECLINE": DECLINE}  # as guard.py's guards have it
    steps = GlobalStateChecks(expected, data_parallel=False, namespace=namespace, constant=Constants(namespace)).steps()
    check = compile_function(function_source("state", fast_lines(steps), ["return True"]), "state", namespace)
    for state in STATES:
        with STATES[state]():
            verdict = check((), {})
        if recorded(state) == expected:
            assert verdict is True, state
        else:
            assert verdict is MISS or verdict is DECLINE, state
