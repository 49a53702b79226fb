"""Tests of the autograd connection of jitted calls (thunder/executors/torch_autograd.py) and of the
``clear_mutable_collection`` printer of the Python executor."""

import collections
import gc
import weakref

import pytest
import torch
from torch.testing import assert_close
from torch.utils._python_dispatch import TorchDispatchMode

import thunder
from thunder.executors.torch_autograd import connect_to_autograd
from thunder.tests.framework import NOTHING, instantiate

ACCUMULATE = "torch::autograd::AccumulateGrad"


def graph(split: bool, *inputs: str | None) -> tuple:
    """The autograd graph of a jitted training call's output, as ``graph_names`` gives it: with split autograd (the
    default), the outputs' ThunderOutputFunction is linked to the ThunderFunction that holds the backward and to the
    inputs' nodes; without it, one ThunderFunction is linked to the inputs' nodes."""
    if split:
        return "ThunderOutputFunctionBackward", ("ThunderFunctionBackward", *inputs)
    return "ThunderFunctionBackward", inputs


def graph_names(out: torch.Tensor) -> tuple:
    return out.grad_fn.name(), tuple(fn.name() if fn else None for fn, _ in out.grad_fn.next_functions)


class RecordOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func)
        return func(*args, **(kwargs or {}))


@instantiate(dtypes=NOTHING)
def test_training_call_makes_no_random_placeholder(executor, device, _):
    def f(a, b):
        return (a.sin() * b).sum()

    jf = executor.make_callable(f)
    a = torch.randn(3, 4, device=device, requires_grad=True)
    b = torch.randn(3, 4, device=device)
    jf(a, b).backward()  # compiles; the call below hits the cache
    a.grad = None
    with RecordOps() as recorded:
        out = jf(a, b)
        out.backward()
    random_ops = [op for op in recorded.ops if op.overloadpacket in (torch.ops.aten.randn, torch.ops.aten.normal_)]
    assert random_ops == []

    a_eager = a.detach().clone().requires_grad_()
    expected = f(a_eager, b)
    expected.backward()
    assert_close(out, expected)
    assert_close(a.grad, a_eager.grad)


@pytest.mark.parametrize("split", (True, False), ids=("split", "unsplit"))
def test_training_steps_match_eager(split):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    eager = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    eager.load_state_dict(model.state_dict())
    jitted = thunder.jit(model, thunderfx_disable_split_autograd=not split)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, eager)]
    for step in range(3):
        x = torch.randn(3, 5, requires_grad=True)
        x_eager = x.detach().clone().requires_grad_()
        out, expected = jitted(x), eager(x_eager)
        assert graph_names(out) == graph(split, *[ACCUMULATE] * 5)  # x and the four parameters
        assert_close(out, expected)
        out.square().sum().backward()
        expected.square().sum().backward()
        assert_close(x.grad, x_eager.grad)
        for p, p_eager in zip(model.parameters(), eager.parameters()):
            assert_close(p.grad, p_eager.grad)
        for opt in optimizers:
            opt.step()
            opt.zero_grad()
    assert (thunder.cache_hits(jitted), thunder.cache_misses(jitted)) == (2, 1)


def test_enable_grad_inside_a_call_under_no_grad():
    # The entry has a backward though the call starts with grad mode off: connect_to_autograd runs outside grad mode
    def f(x, w):
        with torch.enable_grad():
            y = (x * w).tanh()
        return y

    jf = thunder.jit(f)
    x, w = torch.randn(3, requires_grad=True), torch.randn(3)
    x_eager = x.detach().clone().requires_grad_()
    f(x_eager, w).sum().backward()
    for _ in range(2):
        with torch.no_grad():
            y = jf(x, w)
            assert not torch.is_grad_enabled()
        assert y.requires_grad and graph_names(y) == graph(True, ACCUMULATE, None)
        y.sum().backward()
        assert_close(x.grad, x_eager.grad)
        x.grad = None


@pytest.mark.parametrize("split", (True, False), ids=("split", "unsplit"))
def test_connect_to_autograd_under_no_grad(split):
    x = torch.randn(3, requires_grad=True)
    out = x.detach() * 2

    def backward_fn(saved_and_other, grads):
        saved, _ = saved_and_other
        (g,) = grads
        saved.clear()
        grads.clear()
        return (g * 2,)

    with torch.no_grad():
        connect_to_autograd(
            backward_fn=backward_fn,
            flat_args=[x],
            flat_output=(out,),
            saved_tensors=(),
            saved_other=(),
            return_none_instead_of_grads=False,
            disable_split_autograd=not split,
            is_differentiable_outputs=None,
        )
        assert not torch.is_grad_enabled()
    assert out.requires_grad and graph_names(out) == graph(split, ACCUMULATE)
    out.sum().backward()
    assert_close(x.grad, torch.full((3,), 2.0))


@pytest.mark.parametrize("split", (True, False), ids=("split", "unsplit"))
def test_double_backward(split):
    jf = thunder.jit(lambda a, b: (a.sin() * b).sum(), thunderfx_disable_split_autograd=not split)
    a, b = torch.randn(3, requires_grad=True), torch.randn(3)
    for _ in range(2):
        out = jf(a, b)
        (ga,) = torch.autograd.grad(out, a, grad_outputs=torch.ones((), requires_grad=True), create_graph=True)
        assert_close(ga, b * a.detach().cos())
        if split:
            # The gradient reaches the ThunderFunction through the link tensor, which does not require grad
            assert not ga.requires_grad
            with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
                ga.sum().backward()
        else:
            with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
                ga.sum().backward()


def test_functorch_transforms():
    def f(y):
        return (y * y).sum()

    x = torch.randn(3)
    # skip_inplace_alias_updates: the alias check reads tensors' storages, which functorch's wrappers do not have.
    # ThunderFunction has no setup_context for grad, as on main; vmap works
    jf = thunder.jit(f, skip_inplace_alias_updates=True)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="must override the setup_context"):
            torch.func.grad(jf)(x)
        with pytest.raises(RuntimeError, match="must override the setup_context"):
            torch.func.jacrev(jf)(x.clone().requires_grad_())
        xs = torch.randn(2, 3, requires_grad=True)
        assert_close(torch.func.vmap(jf)(xs), torch.func.vmap(f)(xs))


def test_dead_functorch_wrapper_as_input():
    # A tensor that escaped torch.func.grad is a dead wrapper: apply unwraps it, so the gradient reaches x
    leaked = []

    def g(x):
        y = x * 1.0
        leaked.append(y)
        return y.sum()

    x = torch.randn(3, requires_grad=True)
    torch.func.grad(g)(x)
    jf = thunder.jit(lambda t: (t * 2).sum(), skip_inplace_alias_updates=True)
    jf(leaked[0])
    out = jf(leaked[0])
    assert graph_names(out) == graph(True, "MulBackward0")
    out.backward()
    assert_close(x.grad, torch.full((3,), 2.0))


def test_backward_clears_collections():
    def f(a, b):
        return (a.sin() * b).sum()

    jf = thunder.jit(f)
    a, b = torch.randn(3, requires_grad=True), torch.randn(3)
    jf(a, b).backward()
    backward_trace = thunder.last_backward_traces(jf)[-1]
    assert "cotangents.clear() if __type(cotangents) is __list else clear_mutable_collection(cotangents)" in str(
        backward_trace
    )

    class SubList(list):
        pass

    # The saved tensors (b, a) and other values (none here) in lists of other types are cleared as lists are;
    # a tuple is left as it is
    bw = backward_trace.python_callable()
    for make_list in (list, SubList, collections.deque):
        tensors, other = make_list([b, a]), ()
        saved, cotangents = make_list([tensors, other]), make_list([torch.tensor(1.0)])
        grad_a, grad_b = bw(saved, cotangents)
        assert_close(grad_a, b * a.detach().cos())
        assert grad_b is None
        assert not saved and not tensors and not cotangents


def test_saved_tensors_are_freed_by_backward():
    def f(a, b):
        return (a.exp() * b).tanh().sum()

    jf = thunder.jit(f)
    a, b = torch.randn(3, requires_grad=True), torch.randn(3)
    jf(a, b).backward()
    refs = []

    def pack(t):
        refs.append(weakref.ref(t))
        return t

    gc.collect()
    gc.disable()
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = jf(a, b)
        intermediates = [r for r in refs if r() is not a and r() is not b]
        assert intermediates and all(r() is not None for r in intermediates)
        out.backward()
        assert all(r() is None for r in intermediates)
    finally:
        gc.enable()


def test_backward_of_a_function_with_a_parameter_named_type():
    # The compiled backward clears its saved tensors' lists with a printed check that calls type by a name of its own
    def f(x, type):
        return (x * type).sum()

    x, y = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    thunder.jit(f)(x, y).backward()
    assert_close(x.grad, y.detach(), rtol=0, atol=0)
    assert_close(y.grad, x.detach(), rtol=0, atol=0)
