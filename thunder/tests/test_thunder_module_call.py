"""Tests of calling a jitted module (``ThunderModule.__call__``): hooks, ``compile``, an instance's ``forward``,
``torch.jit.trace`` and calls from a jitted function behave as with ``nn.Module.__call__``."""

import copy

import pytest
import thunder
import torch
from thunder.core.module import ThunderModule
from torch.nn.modules import module as nn_module
from torch.testing import assert_close


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)
        self.scale = 2.0

    def forward(self, x, *, shift=0.0):
        return torch.tanh(self.linear(x)) * self.scale + shift


def assert_same(actual, expected):
    """Tensors close, anything else equal, through lists, tuples and dicts."""
    if isinstance(expected, torch.Tensor):
        assert_close(actual, expected)
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys()
        for k in expected:
            assert_same(actual[k], expected[k])
    else:
        assert actual == expected


def eager_and_jitted():
    torch.manual_seed(0)
    eager = Scaled()
    return eager, thunder.jit(copy.deepcopy(eager))


def install_hooks(module, log):
    """Module hooks of each kind that log their calls; some change the arguments or the output."""

    def tensors(xs):
        return [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in xs]

    def pre(m, args):
        log.append(("pre", m is module, tensors(args)))
        return (args[0] * 2,)

    def pre_kwargs(m, args, kwargs):
        log.append(("pre_kwargs", m is module, tensors(args), kwargs))
        return args, {**kwargs, "shift": kwargs.get("shift", 0.0) + 1.0}

    def post(m, args, out):
        log.append(("post", m is module, tensors(args), out.detach().clone()))
        return out - 0.5

    def post_kwargs(m, args, kwargs, out):
        log.append(("post_kwargs", m is module, kwargs, out.detach().clone()))

    def backward_pre(m, grad_output):
        log.append(("backward_pre", m is module, tensors(grad_output)))

    def backward(m, grad_input, grad_output):
        log.append(("backward", m is module, tensors(grad_input), tensors(grad_output)))

    return [
        module.register_forward_pre_hook(pre),
        module.register_forward_pre_hook(pre_kwargs, with_kwargs=True),
        module.register_forward_hook(post),
        module.register_forward_hook(post_kwargs, with_kwargs=True),
        module.register_forward_pre_hook(lambda m, args: log.append(("prepended", m is module)), prepend=True),
        module.register_full_backward_pre_hook(backward_pre),
        module.register_full_backward_hook(backward),
    ]


def install_global_hooks(log):
    return [
        nn_module.register_module_forward_pre_hook(lambda m, args: log.append(("global_pre", type(m).__name__))),
        nn_module.register_module_forward_hook(lambda m, args, out: log.append(("global_post", type(m).__name__))),
        nn_module.register_module_full_backward_pre_hook(lambda m, go: log.append(("global_bw_pre", type(m).__name__))),
        nn_module.register_module_full_backward_hook(lambda m, gi, go: log.append(("global_bw", type(m).__name__))),
    ]


def calls(module, log, n=3):
    """Calls ``module`` ``n`` times with and without a keyword argument, each followed by a backward, and returns
    what each call logged, its output and its input's gradient."""
    results = []
    for i in range(n):
        log.clear()
        x = torch.linspace(-1, 1, 8).reshape(2, 4).requires_grad_()
        out = module(x, shift=0.25) if i % 2 else module(x)
        out.sum().backward()
        results.append((list(log), out.detach(), x.grad))
    return results


@pytest.mark.parametrize("first_call_before_hooks", (False, True), ids=("hooks_first", "call_first"))
def test_module_hooks(first_call_before_hooks):
    eager, jitted = eager_and_jitted()
    if first_call_before_hooks:
        calls(jitted, [], n=2)
    logs = {"eager": [], "jitted": []}
    handles = install_hooks(eager, logs["eager"]) + install_hooks(jitted, logs["jitted"])
    expected = calls(eager, logs["eager"])
    assert_same(calls(jitted, logs["jitted"]), expected)
    assert [entry[0] for entry in expected[0][0]] == [
        "prepended",
        "pre",
        "pre_kwargs",
        "post",
        "post_kwargs",
        "backward_pre",
        "backward",
    ]
    for h in handles:
        h.remove()
    # Without hooks again
    assert_same(calls(jitted, logs["jitted"]), calls(eager, logs["eager"]))
    assert logs["jitted"] == []


@pytest.mark.parametrize("full_backward_pre_hook", (False, True), ids=("full_backward_hook", "full_backward_pre_hook"))
def test_backward_hook_alone(full_backward_pre_hook):
    eager, jitted = eager_and_jitted()
    calls(jitted, [], n=2)
    logs = {"eager": [], "jitted": []}
    for name, module in (("eager", eager), ("jitted", jitted)):
        log = logs[name]
        if full_backward_pre_hook:
            module.register_full_backward_pre_hook(lambda m, grad_output, log=log: log.append(grad_output))
        else:
            module.register_full_backward_hook(lambda m, grad_input, grad_output, log=log: log.append(grad_input))
    results = calls(jitted, logs["jitted"])
    assert_same(results, calls(eager, logs["eager"]))
    assert all(len(entries) == 1 for entries, _, _ in results)


def test_global_hooks():
    eager, jitted = eager_and_jitted()
    calls(jitted, [], n=2)  # traced without global hooks (Thunder cannot trace the model's backward hooks)
    log = []
    handles = install_global_hooks(log)
    try:
        results = calls(jitted, log)
    finally:
        for h in handles:
            h.remove()
    expected = [("global_pre", "ThunderModule"), ("global_post", "ThunderModule")]
    expected += [("global_bw_pre", "ThunderModule"), ("global_bw", "ThunderModule")]
    assert [entries for entries, _, _ in results] == [expected] * 3
    assert_same([r[1:] for r in results], [r[1:] for r in calls(eager, [])])
    assert calls(jitted, log)[0][0] == []


def test_compile_calls_the_compiled_call(monkeypatch):
    eager, jitted = eager_and_jitted()
    calls(jitted, [], n=2)
    compiled_calls = []

    def compile(fn, **kwargs):
        def compiled(*args, **kwargs):
            compiled_calls.append(len(args))
            return fn(*args, **kwargs)

        return compiled

    monkeypatch.setattr(torch, "compile", compile)
    jitted.compile()
    assert_same(calls(jitted, []), calls(eager, []))
    assert compiled_calls == [1, 1, 1]


def test_forward_set_on_the_instance():
    eager, jitted = eager_and_jitted()
    x = torch.randn(2, 4)
    jitted(x)
    jitted.forward = lambda x: x + 1
    assert_close(jitted(x), x + 1)
    del jitted.forward
    assert_close(jitted(x), eager(x))


def test_forward_of_a_subclass():
    class Doubled(ThunderModule):
        def forward(self, *args, **kwargs):
            return super().forward(*args, **kwargs) * 2

    eager, jitted = eager_and_jitted()
    x = torch.randn(2, 4)
    jitted(x)
    doubled = Doubled(jitted._model, jitted._forward_fn)
    assert_close(doubled(x), eager(x) * 2)


def test_forward_set_on_the_class(monkeypatch):
    eager, jitted = eager_and_jitted()
    x = torch.randn(2, 4)
    jitted(x)
    monkeypatch.setattr(ThunderModule, "forward", lambda self, x: self._forward_fn(x) * 2)
    assert_close(jitted(x), eager(x) * 2)


def test_torch_jit_trace():
    eager, jitted = eager_and_jitted()
    x = torch.randn(2, 4)
    jitted(x)
    traced = torch.jit.trace(jitted, (x,), check_trace=False)
    assert_close(traced(x), eager(x))
    # Inside a container, the jitted module is recorded as a submodule whose forward is called
    traced = torch.jit.trace(torch.nn.Sequential(jitted, torch.nn.ReLU()), (x,), check_trace=False)
    assert_close(traced(x), torch.relu(eager(x)))
    assert "0" in dict(traced.named_children())
    assert [node.kind() for node in traced.graph.nodes()].count("prim::CallMethod") == 2


def test_torch_fx_trace_with_a_jitted_module_as_a_leaf():
    # torch.fx's tracer replaces nn.Module.__call__ to record a leaf module's call as one call_module node
    class Tracer(torch.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, ThunderModule) or super().is_leaf_module(m, qualname)

    eager, jitted = eager_and_jitted()
    x = torch.randn(2, 4)
    jitted(x)
    outer = torch.nn.Sequential(jitted, torch.nn.ReLU())
    graph = Tracer().trace(outer)
    assert [(n.op, str(n.target)) for n in graph.nodes] == [
        ("placeholder", "input"),
        ("call_module", "0"),
        ("call_module", "1"),
        ("output", "output"),
    ]
    assert_close(torch.fx.GraphModule(outer, graph)(x), torch.relu(eager(x)))


@pytest.mark.parametrize("with_hook", (False, True), ids=("no_hook", "forward_hook"))
def test_called_from_a_jitted_function(with_hook):
    eager, jitted = eager_and_jitted()
    log = []
    if with_hook:
        jitted.register_forward_hook(lambda m, args, out: log.append(type(m).__name__) or out + 1)
    outer = thunder.jit(lambda x: jitted(x) * 2)
    x = torch.randn(2, 4, requires_grad=True)
    logs = []
    for _ in range(3):
        log.clear()
        assert_close(outer(x), (eager(x) + with_hook) * 2)
        logs.append(list(log))
    # The hook is traced into the outer function: it runs when the outer function is traced, then not
    assert logs == ([["ThunderModule"], [], []] if with_hook else [[], [], []])
    assert (thunder.cache_hits(outer), thunder.cache_misses(outer)) == (2, 1)
    assert (thunder.cache_hits(jitted), thunder.cache_misses(jitted)) == (0, 0)


def test_getattr_forwards_to_the_model():
    _, jitted = eager_and_jitted()
    model = jitted._model
    assert isinstance(jitted, ThunderModule) and model is jitted._modules["_model"]
    assert jitted.scale == 2.0 and jitted.linear is model.linear and jitted.training is model.training
    model.scale = 3.0
    assert jitted.scale == 3.0
    with pytest.raises(AttributeError, match="'Scaled' object has no attribute 'missing'"):
        _ = jitted.missing
