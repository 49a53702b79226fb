"""Training hits: gradients, the autograd graph that a hit connects (``grad_fn`` names and structure, saved tensors),
and the forms of ``backward`` that a user may call.
"""

from __future__ import annotations

import gc
import warnings
import weakref
from typing import NamedTuple

import pytest
import torch

import thunder
import thunder.fastpath

from fastpath_harness import (
    DEVICES_AND_EXECUTORS,
    assert_bitwise,
    hits_misses,
    t,
    took_fast_path,
)


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
        return (
            t(3, 4, seed=0, requires_grad=True).to(device),
            t(4, 5, seed=1, requires_grad=True).to(device),
            t(2, 3, seed=2, requires_grad=True).to(device),
        )

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
            training_outcome(
                f,
                [t(3, 4, requires_grad=True), t(4, 5, seed=1, requires_grad=True), t(2, 3, seed=2)],
                lambda out: out.sum().backward(),
            )
            for f in (up, fast)
        )
        assert_bitwise(theirs.values, ours.values)
        assert theirs.graph == ours.graph and theirs.graph[0][0] == "ThunderFunctionBackward"
        assert_bitwise(theirs.grads, ours.grads)
    assert took_fast_path(fast)
    assert ours.function is theirs.function is thunder.executors.torch_autograd.ThunderFunction
