"""Training hits: outputs, gradients and the autograd graph that a hit function connects (``grad_fn`` names, saved
tensors), the forms of ``backward`` a user may call, training loops, and outputs that are views."""

from __future__ import annotations

import copy
import functools
import gc
import warnings
import weakref

import pytest
import torch

import thunder
from thunder.executors.torch_autograd import ThunderFunction, ThunderOutputFunction
from thunder.tests.cache_hit_harness import (
    EXECUTORS,
    Call,
    assert_bitwise,
    autograd_facts,
    calls_with_an_entry_whose_first_call_raised,
    hits_misses,
    run_differential,
    served_by_hit_fn,
    t,
)
from thunder.tests.framework import NOTHING, instantiate


def autograd_graph(out) -> list:
    """The autograd nodes behind ``out``, breadth first: each node's name and the names of its next functions."""
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
    try:
        return len(node.saved_tensors)
    except RuntimeError:  # "... saved tensors after they have already been freed"
        return "released"


def second_order(out, inputs):
    grads = torch.autograd.grad(out.sum(), inputs[:2], create_graph=True)
    try:
        torch.autograd.grad(grads[0].sum(), inputs[:2])
        second = "returned"
    except RuntimeError as e:  # once_differentiable's error
        second = type(e)
    return grads, [g.grad_fn.name() if g.grad_fn is not None else None for g in grads], second


def backward_in_anomaly_mode(out, inputs):
    with torch.autograd.set_detect_anomaly(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anomaly mode warns with the forward's traceback
        out.sum().backward()


def backward_under_autocast(out, inputs):
    with torch.autocast(inputs[0].device.type, dtype=torch.bfloat16):
        return torch.autograd.grad(out.sum(), inputs[:2])


def backward_twice(out, inputs, retain_graph=False):
    out.sum().backward(retain_graph=retain_graph)
    out.sum().backward()  # raises where the first backward freed the graph


# Each form returns what it computed, or None where the gradients are the inputs' .grad.
BACKWARD_FORMS = {
    "sum": lambda out, inputs: out.sum().backward(),
    "ones": lambda out, inputs: out.backward(torch.ones_like(out)),
    "twice": backward_twice,
    "retain_graph": lambda out, inputs: out.sum().backward(retain_graph=True),
    "retain_graph_then_again": functools.partial(backward_twice, retain_graph=True),
    "no_backward": lambda out, inputs: None,  # a saved view of an output must not keep the graph alive
    "anomaly_mode": backward_in_anomaly_mode,  # checks every gradient, the meta link's too: raises
    "create_graph": second_order,
    "under_autocast": backward_under_autocast,
}


def training_outcome(f, inputs, backward) -> tuple:
    """One call of ``f`` and ``backward`` of its first output: output values, the first output's graph and Function,
    what the backward gave (or the type of its exception), saved tensors after it and outputs kept alive."""
    out = f(*inputs)
    first = out[0]
    graph, function = autograd_graph(first), first.grad_fn._forward_cls
    try:
        result = backward(first, inputs)
        if result is None:
            result = [a.grad for a in inputs if a.requires_grad]
    except RuntimeError as e:
        result = type(e)
    saved = saved_tensors_state(first.grad_fn)
    leaves = torch.utils._pytree.tree_leaves(out)
    values = [(x.detach().clone(), x.requires_grad) for x in leaves]
    outputs = [weakref.ref(x) for x in leaves if not any(x is a for a in inputs)]
    del out, first, leaves
    gc.collect()
    return values, graph, function, result, saved, [r() is not None for r in outputs]


def two_layers(x, w1, w2):
    h = torch.tanh(x @ w1)
    # The second matmul saves a view of an output (h); the outputs include an input as it is
    return h[:, :2] @ w2, h, x


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_training_hits_connect_to_autograd(executor, device, _):
    # The first call compiles, then each form of backward follows a hit: with split autograd, and with one Function
    # (as ThunderFX asks for).
    for options, function in (
        ({}, ThunderOutputFunction),
        ({"thunderfx_disable_split_autograd": True}, ThunderFunction),
    ):
        ref = thunder.jit(two_layers, fastpath=False, executors=executor.executors_list(), **options)
        fast = thunder.jit(two_layers, executors=executor.executors_list(), **options)
        for i, (name, backward) in enumerate([("sum", BACKWARD_FORMS["sum"]), *BACKWARD_FORMS.items()]):
            inputs = lambda: [a.to(device).requires_grad_() for a in (t(3, 4), t(4, 5, seed=1), t(2, 3, seed=2))]
            rng = torch.get_rng_state()
            theirs, ours = (training_outcome(f, inputs(), backward) for f in (ref, fast))
            assert torch.equal(rng, torch.get_rng_state())
            assert served_by_hit_fn(fast) == (i > 0) and hits_misses(ref) == hits_misses(fast), name
            values, graph, fn, result, saved, alive = theirs
            assert_bitwise(values, ours[0])
            assert graph == ours[1] and fn is ours[2] is function, name
            if isinstance(result, type):
                assert result is ours[3] is RuntimeError, name
            else:
                assert_bitwise(result, ours[3])
            assert (saved, alive) == ours[4:] and not any(alive), name
            if name == "create_graph":
                assert result[2] is RuntimeError


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_a_language_model_trained_with_adamw(executor, device, _):
    # A small nanoGPT (tied weights, layer norms, attention, cross-entropy): forward with targets, backward, AdamW,
    # zero_grad(set_to_none=True). Losses and parameters bitwise equal after every step.
    from thunder.tests import nanogpt_model

    config = nanogpt_model.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8, vocab_size=32, dropout=0.0)
    torch.manual_seed(0)
    model = nanogpt_model.GPT(config).to(device)
    systems = {}
    for fastpath in (False, True):
        model_copy = copy.deepcopy(model)
        optimizer = torch.optim.AdamW(model_copy.parameters(), lr=1e-2, foreach=True)
        systems[fastpath] = (thunder.jit(model_copy, fastpath=fastpath, executors=executor.executors_list()), optimizer)
    generator = torch.Generator().manual_seed(0)
    for step in range(4):
        idx, targets = (torch.randint(0, 32, (2, 8), generator=generator).to(device) for _ in range(2))
        losses = {}
        for fastpath, (jitted, optimizer) in systems.items():
            loss = jitted(idx, targets)[1]
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses[fastpath] = (loss.detach(), loss.grad_fn.name())
        assert served_by_hit_fn(systems[True][0]) == (step > 0)
        assert_bitwise(losses[False][0], losses[True][0])
        assert losses[False][1] == losses[True][1] == "ThunderOutputFunctionBackward"
        assert_bitwise(list(systems[False][0].parameters()), list(systems[True][0].parameters()))
        assert hits_misses(systems[False][0]) == hits_misses(systems[True][0])


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_training_under_autocast(executor, device, _):
    def forward_and_backward(f):
        a, w = t(4, 8, requires_grad=True).to(device), t(8, 8, seed=1).to(device).requires_grad_()
        with torch.autocast(device, dtype=torch.bfloat16):
            out = f(a, w)
        out.float().sum().backward()
        return out.detach(), out.dtype, a.grad, w.grad

    f = lambda a, w: torch.tanh(a @ w) * 2
    ref = thunder.jit(f, fastpath=False, executors=executor.executors_list())
    fast = thunder.jit(f, executors=executor.executors_list())
    for i in range(3):
        theirs, ours = forward_and_backward(ref), forward_and_backward(fast)
        assert_bitwise(theirs, ours)
        assert hits_misses(ref) == hits_misses(fast) and served_by_hit_fn(fast) == (i > 0)
    assert ours[1] is torch.bfloat16


def test_requires_grad_is_part_of_the_cache_key():
    calls = [
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {})),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3), t(2, 3, requires_grad=True)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), ctx=torch.no_grad, expect_fast=False),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), ctx=torch.no_grad, expect_fast=True),
    ]
    run_differential(lambda a, b: a * b + a.sin(), calls)


def test_training_entry_whose_first_call_raised():
    ref, fast = run_differential(*calls_with_an_entry_whose_first_call_raised(requires_grad=True))
    assert hits_misses(fast) == (5, 3)


def run_both(ref, fast, *args):
    """One call of each: outputs, autograd facts and counts equal. Returns ``fast``'s output."""
    out_ref, out_fast = ref(*args), fast(*args)
    assert_bitwise(out_ref, out_fast)
    assert autograd_facts(out_ref) == autograd_facts(out_fast) and hits_misses(ref) == hits_misses(fast)
    return out_fast


def in_place_outcome(out):
    """Whether an in-place update with an operand that requires grad is allowed (not on a view made in no_grad)."""
    try:
        out.add_(torch.ones_like(out, requires_grad=True))
        return "allowed"
    except RuntimeError as e:
        return type(e)


@pytest.mark.parametrize(
    "fn",
    [lambda a: a.reshape(-1), lambda a: (a.sin(), a.t()), lambda a: a[1:] * 1, lambda a: a[1:]],
    ids=["reshape", "transpose", "slice_copied", "slice"],
)
def test_outputs_that_are_views(fn):
    # A view records the grad mode that made it: the outputs of a hit are made with grad mode off, as the computation
    # is run without the fast path, on any layout.
    ref, fast = thunder.jit(fn, fastpath=False), thunder.jit(fn)
    transposed = t(6, 4).t()
    contiguous = transposed.contiguous()
    for i, x in enumerate([transposed, contiguous, transposed, contiguous]):
        outs = [torch.utils._pytree.tree_leaves(f(x)) for f in (ref, fast)]
        assert served_by_hit_fn(fast) == (i > 0) and hits_misses(ref) == hits_misses(fast)
        assert [in_place_outcome(o) for o in outs[1]] == [in_place_outcome(o) for o in outs[0]]
        run_both(ref, fast, x)
        assert torch.is_grad_enabled()
