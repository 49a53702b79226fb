"""Tests of nvFuser regions called with inputs whose layout changes from call to call (``FusionDefinitionWrapper``
in thunder/executors/nvfuserex_impl.py): each call runs the definition of its own layout."""

import thunder
import torch
from thunder.tests.framework import nvFuserExecutor, requiresCUDA, requiresNVFuser


def f(a, b):
    return (a * b + 1).exp()


def fusion_wrappers(jitted):
    trace = thunder.last_traces(jitted)[-1]
    return [v for k, v in trace.python_ctx().items() if k.startswith("nvFusion")]


def layouts(device):
    """Tensors of one shape in three layouts: contiguous, transposed and broadcast (a stride of 0)."""
    return {
        "contiguous": torch.randn(4, 6, device=device),
        "transposed": torch.randn(6, 4, device=device).t(),
        "expanded": torch.randn(1, 6, device=device).expand(4, 6),
    }


@requiresCUDA
@requiresNVFuser
def test_outputs_as_without_known_layouts():
    executors = nvFuserExecutor.executors_list()
    jf = thunder.jit(f, executors=executors, nv_store_fusion_inputs=True)
    tensors = layouts("cuda")
    b = torch.randn(4, 6, device="cuda")
    definitions = {}
    for name in ("contiguous", "transposed", "contiguous", "expanded", "transposed", "contiguous"):
        a = tensors[name]
        out = jf(a, b)
        (fdw,) = fusion_wrappers(jf)
        args = fdw.last_inputs
        assert len(args) == 2 and {id(t) for t in args} == {id(a), id(b)}
        # last_used is the definition of this call's layout
        assert fdw.last_used is definitions.setdefault(name, fdw.get_fd(fdw.to_descriptors(args)))
        (expected,) = fdw.call_with_descriptors(*args)
        assert torch.equal(out, expected)
        assert torch.equal(out, thunder.jit(f, executors=executors)(a, b))
        torch.testing.assert_close(out, f(a, b))
    assert len({id(d) for d in definitions.values()}) == 3
    assert len(fdw.layouts) == 3
    assert thunder.cache_misses(jf) == 1


@requiresCUDA
@requiresNVFuser
def test_layouts_in_turn_without_stored_inputs():
    executors = nvFuserExecutor.executors_list()
    jf = thunder.jit(f, executors=executors)
    tensors = layouts("cuda")
    b = torch.randn(4, 6, device="cuda")
    for name in ("transposed", "contiguous", "transposed", "expanded", "expanded", "contiguous"):
        a = tensors[name]
        out = jf(a, b)
        (fdw,) = fusion_wrappers(jf)
        assert fdw.last_inputs is None
        assert torch.equal(out, thunder.jit(f, executors=executors)(a, b))
        torch.testing.assert_close(out, f(a, b))
    assert thunder.cache_misses(jf) == 1


@requiresCUDA
@requiresNVFuser
def test_inputs_are_stored_on_every_call():
    jf = thunder.jit(f, executors=nvFuserExecutor.executors_list(), nv_store_fusion_inputs=True)
    b = torch.randn(4, 6, device="cuda")
    for _ in range(3):
        a = torch.randn(4, 6, device="cuda")  # the same layout, new tensors
        out = jf(a, b)
        (fdw,) = fusion_wrappers(jf)
        assert {id(t) for t in fdw.last_inputs} == {id(a), id(b)}
        torch.testing.assert_close(out, f(a, b))
    assert thunder.cache_hits(jf) == 2


@requiresCUDA
@requiresNVFuser
def test_a_tensor_passed_twice():
    jf = thunder.jit(f, executors=nvFuserExecutor.executors_list())
    a, b = torch.randn(4, 6, device="cuda"), torch.randn(4, 6, device="cuda")
    for x, y in ((a, a), (a, b), (a, a), (b, b), (a, b)):
        torch.testing.assert_close(jf(x, y), f(x, y))


@requiresCUDA
@requiresNVFuser
def test_a_number_input_and_more_layouts_than_remembered():
    from thunder.executors.nvfuserex_impl import MAX_KNOWN_LAYOUTS

    def g(a, x):
        return (a * x).exp()

    executors = nvFuserExecutor.executors_list()
    # symbolic values: x is an input of the region beside the tensor
    jf = thunder.jit(g, executors=executors, cache="symbolic values")
    base = torch.randn(8, 12, device="cuda")
    inputs = [
        torch.randn(4, 6, device="cuda"),
        torch.randn(6, 4, device="cuda").t(),
        torch.randn(1, 6, device="cuda").expand(4, 6),
        torch.randn(4, 1, device="cuda").expand(4, 6),
        base[::2, ::2],
        base[1::2, 6:],
    ]
    for x in (2.0, 3.0):
        for a in inputs:
            out = jf(a, x)
            (fdw,) = fusion_wrappers(jf)
            assert len(fdw.tensor_indices) == 1  # x is not a tensor
            assert torch.equal(out, thunder.jit(g, executors=executors, cache="symbolic values")(a, x))
            torch.testing.assert_close(out, g(a, x))
    # the first layouts are remembered; the others take the path that computes descriptors
    assert len(fdw.layouts) == MAX_KNOWN_LAYOUTS < len(inputs)
    assert thunder.cache_misses(jf) == 1
