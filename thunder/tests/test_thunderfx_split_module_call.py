"""Tests of what ThunderFX's backend returns to Dynamo for a split module (``_split_module_call`` in
thunder/dynamo/compiler.py): results, hooks and exceptions as when Dynamo calls the split module itself."""

import operator

import pytest
import torch
from thunder.dynamo import ThunderCompiler, thunderfx
from torch.nn.modules import module as nn_module
from torch.testing import assert_close


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # Dynamo keeps compiled entries on each frame's code object, across torch.compile calls
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Block(torch.nn.Module):
    """Two linear layers with a graph break between them: Dynamo captures two graphs."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Linear(6, 6)
        self.b = torch.nn.Linear(6, 6)

    def forward(self, x):
        y = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return torch.nn.functional.gelu(self.b(y)).sum(-1)


def compiled_block():
    block = Block()
    compiled = thunderfx(block)
    x = torch.randn(4, 6)
    compiled(x), compiled(x)  # compiled, then a hit
    infos = compiled._backend.subgraph_infos
    assert len(infos) == 2 and all(len(info.thunder_compiled_fns) == 1 for info in infos)
    return block, compiled, x


def split_modules(compiled):
    return [info.split_graph_module for info in compiled._backend.subgraph_infos]


def regions(compiled):
    return [fn for info in compiled._backend.subgraph_infos for fn in info.thunder_compiled_fns]


@pytest.mark.parametrize("grad", (False, True), ids=("no_grad", "grad"))
def test_results_match_eager(grad):
    block = Block()
    compiled = thunderfx(block)
    for shape in [(4, 6), (4, 6), (2, 3, 6), (2, 3, 6), (4, 6)]:
        x = torch.randn(*shape, requires_grad=grad)
        x_eager = x.detach().clone().requires_grad_(grad)
        with torch.set_grad_enabled(grad):
            out, expected = compiled(x), block(x_eager)
        assert_close(out, expected)
        if grad:
            out.sum().backward()
            expected.sum().backward()
            assert_close(x.grad, x_eager.grad)


def call_with_hooks(compiled, x, install):
    log = []
    handles = install(compiled, log)
    try:
        return compiled(x), log
    finally:
        for h in handles:
            h.remove()


def global_hooks(compiled, log):
    return [
        nn_module.register_module_forward_pre_hook(lambda m, args: log.append(type(m).__name__)),
        nn_module.register_module_forward_hook(lambda m, args, out: log.append("after " + type(m).__name__)),
    ]


def split_module_hooks(compiled, log):
    def doubled(module, args, out):
        log.append("split")
        return tuple(o * 2 for o in out)

    hooks = [m.register_forward_pre_hook(lambda m, args: log.append("split pre")) for m in split_modules(compiled)]
    return hooks + [m.register_forward_hook(doubled) for m in split_modules(compiled)]


def region_hooks(compiled, log):
    return [fn.register_forward_pre_hook(lambda m, args: log.append("region")) for fn in regions(compiled)] + [
        fn.register_forward_hook(lambda m, args, out: log.append("after region")) for fn in regions(compiled)
    ]


# Each split module is called by Dynamo through torch._dynamo.disable, an OptimizedModule
_SPLIT_MODULE_CALL = ["OptimizedModule", "GraphModule", "ThunderModule"]
_SPLIT_MODULE_RETURN = ["after ThunderModule", "after GraphModule", "after OptimizedModule"]
EXPECTED_LOGS = {
    "global_hooks": ["OptimizedModule", "Block", *_SPLIT_MODULE_CALL, *_SPLIT_MODULE_RETURN, *_SPLIT_MODULE_CALL]
    + [*_SPLIT_MODULE_RETURN, "after Block", "after OptimizedModule"],
    "split_module_hooks": ["split pre", "split"] * 2,
    "region_hooks": ["region", "after region"] * 2,
}


@pytest.mark.parametrize("install", (global_hooks, split_module_hooks, region_hooks), ids=lambda f: f.__name__)
@pytest.mark.filterwarnings("ignore:Using `torch.compile\\(module\\)` when there are global hooks")
def test_hooks(install):
    block, compiled, x = compiled_block()
    expected = block(x)
    for _ in range(2):
        out, log = call_with_hooks(compiled, x, install)
        assert log == EXPECTED_LOGS[install.__name__]
        if install is split_module_hooks:
            # The first graph's doubled output goes into the second graph, whose output is doubled too
            block_with_doubled_a = torch.nn.functional.gelu(block.b(torch.relu(block.a(x)) * 2)).sum(-1) * 2
            assert_close(out, block_with_doubled_a)
        else:
            assert_close(out, expected)
        assert_close(compiled(x), expected)  # and without the hooks again


@pytest.mark.parametrize("with_hook", (False, True), ids=("no_hook", "split_module_hook"))
def test_exception_in_a_region_propagates(with_hook):
    block, compiled, x = compiled_block()
    region = regions(compiled)[1]

    def raising(*args, **kwargs):
        raise ValueError("raised in the region")

    handles = [m.register_forward_hook(lambda m, args, out: None) for m in split_modules(compiled)] if with_hook else []
    forward_fn = region._forward_fn
    region._forward_fn = raising
    try:
        with pytest.raises(ValueError, match="raised in the region"):
            compiled(x)
    finally:
        region._forward_fn = forward_fn
        for h in handles:
            h.remove()
    assert_close(compiled(x), block(x))


def test_backend_result_follows_the_split_module():
    def f(x):
        return torch.sin(x) + 1

    backend = ThunderCompiler()
    returned = []

    def recording_backend(gm, example_inputs):
        returned.append(backend(gm, example_inputs))
        return returned[-1]

    x = torch.randn(3)
    assert_close(torch.compile(f, backend=recording_backend)(x), f(x))
    (call,) = returned
    assert_close(call(x), (f(x),))  # Dynamo's graphs return tuples
    # Its forward's own lines raise as they do when the split module is called
    with pytest.raises(TypeError, match="positional argument"):
        call(x, x)
    # A recompiled split module has another forward: the backend's result calls the new one
    split = backend.subgraph_infos[0].split_graph_module
    assert call.split_module is split
    output = next(node for node in split.graph.nodes if node.op == "output")
    (outputs,) = output.args
    with split.graph.inserting_before(output):
        doubled = split.graph.call_function(operator.mul, (outputs[0], 2))
    output.args = ((doubled, *outputs[1:]),)
    split.recompile()
    (out,) = call(x)
    assert_close(out, f(x) * 2)


def test_graph_benchmarking_benchmarks_the_split_module(benchmark):
    from thunder.dynamo.compiler_graph_benchmark import ThunderCompilerGraphBenchmarking

    # ThunderCompilerGraphBenchmarking reads the split module from what ThunderCompiler returns
    backend = ThunderCompilerGraphBenchmarking(benchmark, executors={"eager": None})
    block = Block()
    compiled = torch.compile(block, backend=backend)
    x = torch.randn(4, 6)
    assert_close(compiled(x), block(x))
    assert backend.graph_idx == 2
    assert len(backend.subgraph_infos) == 2


def test_compile_specification_gives_the_split_module():
    from thunder.dynamo.benchmark_utils import ThunderCompilerOnGraphModuleSpecification
    from thunder.dynamo.report import run_forward_backward

    # FXGraphReport's consistency check differentiates the compiled module's parameters too
    gm = torch.fx.symbolic_trace(torch.nn.Linear(3, 3))
    x = torch.randn(2, 3, requires_grad=True)
    compiled = ThunderCompilerOnGraphModuleSpecification().compile(gm)
    assert isinstance(compiled, torch.fx.GraphModule)
    (out, grads), (expected_out, expected_grads) = (run_forward_backward(fn, x) for fn in (compiled, gm))
    assert len(grads) == len(expected_grads) == 3
    assert_close((out, grads), (expected_out, expected_grads))
