"""Training hits: gradients, the autograd graph that a hit connects (``grad_fn`` names and structure, saved tensors),
and the forms of ``backward`` that a user may call.
"""

from __future__ import annotations

import copy
import gc
import warnings
import weakref
from typing import NamedTuple

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.fastpath import recompile_reasons
from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    Call,
    assert_bitwise,
    assert_counts_add_up,
    calls_with_an_entry_whose_first_call_raises,
    hits_misses,
    newest_hit,
    reasons_after,
    run_differential,
    run_in_threads,
    t,
    took_fast_path,
)


class TwoLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(8, 16), torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 2.0))
        self.k = 3

    def forward(self, x):
        return self.lin(x) * self.scale * self.k


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


@instantiate(
    dtypes=NOTHING,
    executors=EXECUTORS,
    decorators=(
        pytest.mark.parametrize(
            "backward",
            [
                lambda out: out.sum().backward(),
                lambda out: out.backward(torch.ones_like(out)),
                # a second backward of a graph that the first freed: the same error both ways
                lambda out: (out.sum().backward(), out.sum().backward()),
                # a retained graph keeps its saved tensors, as Thunder's does
                lambda out: out.sum().backward(retain_graph=True),
                lambda out: (out.sum().backward(retain_graph=True), out.sum().backward()),
                # no backward: the saved view of an output must not keep the graph alive (pytorch/pytorch#94990)
                lambda out: None,
                # anomaly mode checks every gradient for NaN with .item(), the link tensor's on the meta device too:
                # Thunder raises RuntimeError, and so must the fast path
                _backward_in_anomaly_mode,
            ],
            ids=["sum", "ones", "twice", "retain_graph", "retain_graph_then_again", "no_backward", "anomaly_mode"],
        ),
    ),
)
def test_training_hits_connect_to_autograd_like_upstream(executor, device, _, backward):
    # Hits of an entry with a backward connect the outputs through thunder/fastpath/autograd.py's Functions (an
    # empty meta tensor links the two, where Thunder makes it with torch.randn). Same outputs, graph (node names),
    # gradients or error, saved tensors released as Thunder releases them, and the random state left alone.
    up = thunder.jit(two_layers, fastpath=False, executors=executor.executors_list())
    fast = thunder.jit(two_layers, fastpath=True, executors=executor.executors_list())

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
    # thunderfx_disable_split_autograd (a compile option that ThunderFX sets): one Function, Thunder's.
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


@instantiate(
    dtypes=NOTHING,
    executors=EXECUTORS,
    decorators=(pytest.mark.parametrize("form", ["create_graph", "backward_under_autocast"]),),
)
def test_backward_forms_that_keep_upstreams_layers(executor, device, _, form):
    # ThunderFunction.backward runs the compiled backward bare where Thunder's layers change nothing. With
    # create_graph=True grad mode is on inside the backward: Thunder's once_differentiable backward runs (its
    # gradients carry a node that raises on a second-order backward). A backward under autocast runs the compiled
    # backward through Thunder's no_autocast layer.
    up = thunder.jit(two_layers, fastpath=False, executors=executor.executors_list())
    fast = thunder.jit(two_layers, fastpath=True, executors=executor.executors_list())

    def outcome(f):
        inputs = [
            t(3, 4, requires_grad=True).to(device),
            t(4, 5, seed=1, requires_grad=True).to(device),
            t(2, 3, seed=2).to(device),
        ]
        inputs = [a.detach().requires_grad_(i < 2) for i, a in enumerate(inputs)]
        out = f(*inputs)[0]
        if form == "create_graph":
            grads = torch.autograd.grad(out.sum(), inputs[:2], create_graph=True)
            names = [g.grad_fn.name() if g.grad_fn is not None else None for g in grads]
            try:
                torch.autograd.grad(grads[0].sum(), inputs[:2])
                second = "returned"
            except RuntimeError as e:
                second = type(e)
            return grads, names, second
        with torch.autocast(device, dtype=torch.bfloat16):
            grads = torch.autograd.grad(out.sum(), inputs[:2])
        return grads, None, None

    for i in range(3):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        (theirs, their_names, their_second), (ours, our_names, our_second) = outcome(up), outcome(fast)
        assert_bitwise(theirs, ours)
        assert their_names == our_names and their_second == our_second
        assert took_fast_path(fast) == (i > 0) and hits_misses(up) == hits_misses(fast)
    if form == "create_graph":
        assert our_second is RuntimeError  # once_differentiable's error


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_a_language_model_trained_with_adamw_like_upstream(executor, device, _):
    # A training loop of a small nanoGPT (weight-tied, layer norms, attention, cross-entropy): forward with targets,
    # backward, AdamW, zero_grad(set_to_none=True). Losses and parameters bitwise equal after every step; every step
    # after the first a hit of the fast path.
    from thunder.tests import nanogpt_model

    config = nanogpt_model.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8, vocab_size=32, dropout=0.0)
    torch.manual_seed(0)
    model = nanogpt_model.GPT(config).to(device)
    systems = {}
    for fastpath in (False, True):
        copy_of_model = copy.deepcopy(model)
        optimizer = torch.optim.AdamW(copy_of_model.parameters(), lr=1e-2, foreach=True)
        systems[fastpath] = (
            thunder.jit(copy_of_model, fastpath=fastpath, executors=executor.executors_list()),
            optimizer,
        )
    generator = torch.Generator().manual_seed(0)
    for step in range(4):
        idx = torch.randint(0, 32, (2, 8), generator=generator).to(device)
        targets = torch.randint(0, 32, (2, 8), generator=generator).to(device)
        losses = {}
        for fastpath, (jitted, optimizer) in systems.items():
            took_fast_path.stamp = thunder.compile_stats(jitted).last_trace_host_start
            loss = jitted(idx, targets)[1]
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses[fastpath] = (loss.detach(), loss.grad_fn.name())
        assert took_fast_path(systems[True][0]) == (step > 0)
        assert_bitwise(losses[False][0], losses[True][0])
        assert losses[False][1] == losses[True][1] == "ThunderOutputFunctionBackward"
        assert_bitwise(list(systems[False][0].parameters()), list(systems[True][0].parameters()))
        assert hits_misses(systems[False][0]) == hits_misses(systems[True][0])


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_training_under_autocast(executor, device, _):
    def make():
        return t(4, 8, requires_grad=True).to(device), t(8, 8, seed=1).to(device).requires_grad_()

    def forward_and_backward(f):
        a, w = make()
        with torch.autocast(device, dtype=torch.bfloat16):
            out = f(a, w)
        out.float().sum().backward()
        return out.detach(), out.dtype, a.grad, w.grad

    f = lambda a, w: torch.tanh(a @ w) * 2
    up = thunder.jit(f, fastpath=False, executors=executor.executors_list())
    fast = thunder.jit(f, fastpath=True, executors=executor.executors_list())
    for i in range(3):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        assert_bitwise(forward_and_backward(up), forward_and_backward(fast))
        assert hits_misses(up) == hits_misses(fast)
        assert took_fast_path(fast) == (i > 0)
    assert forward_and_backward(fast)[1] is torch.bfloat16


def test_grad_switch_kept_where_an_input_requires_grad_or_grad_mode_is_off():
    cases = [
        (lambda a: a * 2, (t(2, 3, requires_grad=True),)),
        (lambda a, b: a * b, (t(2, 3), t(2, 3, requires_grad=True))),
    ]
    for fn, args in cases:
        fast = thunder.jit(fn, fastpath=True)
        fast(*args)
        assert not newest_hit(fast).grad_free_on_layout
    with torch.no_grad():  # nothing to switch
        fast = thunder.jit(lambda a: a * 2, fastpath=True)
        fast(t(2, 3))
        assert not newest_hit(fast).made_with_grad and not newest_hit(fast).grad_free_on_layout


def test_module_called_from_threads_in_both_grad_modes():
    # A jitted module called from four threads over three batch sizes, each call in the grad mode of its turn: one
    # entry per batch size and grad mode (or two, where threads compile it at once). Outputs as eager's, requiring grad
    # as grad mode says; afterwards one thread's calls in both modes are served by guards. (With one is_grad_enabled
    # field in the compile data, written by every call, a thread under no_grad can make another thread's entry for
    # grad mode without its backward. A fast callable keeps it per thread: grad_mode.py.)
    model = TwoLayers()
    jitted = thunder.jit(model, fastpath=True)
    inputs = [t(n, 8, seed=n) for n in (1, 3, 5)]
    with torch.no_grad():
        expected = [model(x) for x in inputs]
    outcomes = []

    def work(k):
        for i in range(60):
            x, want = inputs[(k + i) % 3], expected[(k + i) % 3]
            grad = (k + i // 3) % 2 == 0
            with torch.set_grad_enabled(grad):
                out = jitted(x)
            outcomes.append((torch.allclose(out.detach(), want), out.requires_grad == grad))

    assert run_in_threads(4, work) == []
    assert outcomes == [(True, True)] * 4 * 60
    after_threads = assert_counts_add_up(jitted)
    assert 6 <= after_threads.misses <= 4 * 6
    assert after_threads.guarded_entries == after_threads.entries
    for i in range(120):
        with torch.set_grad_enabled(i % 2 == 0):
            out = jitted(inputs[i % 3])
        assert out.requires_grad == (i % 2 == 0)
    after = assert_counts_add_up(jitted)
    assert after.misses == after_threads.misses
    assert after.served_by_guards - after_threads.served_by_guards >= 0.95 * 120


def test_module_parameters_buffers_and_attributes():
    m = thunder.jit(Scaled(), fastpath=True)
    m(t(2, 4))
    # A buffer replaced by one of another dtype: a miss, whose new entry then fails its own prologue (Thunder traces
    # the model's buffer and checks the ThunderModule's, test_upstream_quirks.py); the record is made all the same.
    m.set_buffer("scale", torch.full((4,), 2.0, dtype=torch.float64))
    with pytest.raises(AssertionError, match="expected tensor"):
        m(t(2, 4))
    assert [str(v) for v in recompile_reasons(m)[-1].entries] == [
        "entry 0 failed: self.scale: dtype torch.float32 expected, torch.float64 given"
    ]
    m.set_buffer("scale", torch.full((4,), 2.0))
    m._model.k = 4  # a plain attribute, read from the model
    assert reasons_after(m, lambda m: m(t(2, 4)))[-1] == (
        "entry 0 failed: self.k: value 3 expected, 4 given (cache=constant values)"
    )
    m._model.lin.weight.requires_grad_(False)  # a parameter that no longer requires grad
    assert reasons_after(m, lambda m: m(t(2, 4)))[0].startswith(
        "entry 2 failed: self.lin.weight: requires_grad True expected, False given"
    )


def test_requires_grad_is_part_of_the_cache_key():
    calls = [
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {})),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3, requires_grad=True), t(2, 3)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3), t(2, 3, requires_grad=True)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a * b + a.sin(), calls)


def test_training_entry_whose_first_call_raised_gets_its_guard():
    # test_cache_semantics.py's calls, with an input that requires grad: entries with a backward.
    up, fast = run_differential(*calls_with_an_entry_whose_first_call_raises(requires_grad=True))
    assert hits_misses(fast) == (5, 3)
