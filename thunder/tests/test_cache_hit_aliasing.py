"""Cache hit functions on arguments that share storage, and on tensors of other types, layouts and dispatch keys: they
decide as the cache lookup's alias check and prologue do.
"""

from __future__ import annotations

import struct
import subprocess
import sys

import pytest
import torch

from thunder.tests.cache_hit_harness import Call, hits_misses, run_differential, t


def fresh():
    return (t(5), t(5, seed=1)), {}


def same_twice():
    a = t(5)
    return (a, a), {}


def views_of_one_storage():
    base = t(10)
    return (base[:5], base[5:]), {}


def test_aliased_inputs_updated_in_place():
    calls = [
        Call(fresh),
        Call(fresh, expect_fast=True),
        Call(same_twice, expect_fast=False),
        Call(same_twice, expect_fast=True),
        Call(views_of_one_storage, expect_fast=True),
        Call(fresh, expect_fast=True),
    ]

    def f(a, b):
        a.mul_(2)
        return a + b

    ref, fast = run_differential(f, calls)
    assert hits_misses(fast) == (4, 2)


def test_parameter_argument_sharing_a_tensor_arguments_storage():
    # The cache lookup's alias check leaves Parameters out: a Parameter that shares a tensor argument's storage is no
    # alias of it, and the call hits the entry made for distinct storages.
    def tensor_and_parameter(shared: bool):
        def make():
            x = t(5)
            return (x, torch.nn.Parameter(x if shared else t(5, seed=1), requires_grad=False)), {}

        return make

    calls = [
        Call(tensor_and_parameter(False)),
        Call(tensor_and_parameter(False), expect_fast=True),
        Call(tensor_and_parameter(True), expect_fast=True),
        Call(tensor_and_parameter(False), expect_fast=True),
    ]
    ref, fast = run_differential(lambda x, p: x * p, calls)
    assert hits_misses(fast) == hits_misses(ref) == (3, 1)


def test_aliased_keyword_arguments_in_any_order():
    # Keyword arguments are flattened with their keys sorted: the same tensor as b and c is "1,2" in any order.
    def keywords(*order, alias=False):
        def make():
            x, y = t(5), t(5, seed=1)
            values = {"a": y, "b": x, "c": x if alias else t(5, seed=2)}
            return (), {k: values[k] for k in order}

        return make

    calls = [
        Call(keywords(*"abc")),
        Call(keywords(*"abc"), expect_fast=True),
        Call(keywords(*"abc", alias=True), expect_fast=False),
        Call(keywords(*"abc", alias=True), expect_fast=True),
        Call(keywords(*"bca", alias=True), expect_fast=True),
        Call(keywords(*"cba"), expect_fast=True),
    ]
    ref, fast = run_differential(lambda **kw: kw["a"] * 2 + kw["b"] - kw["c"], calls)
    assert hits_misses(fast) == (4, 2)


def test_aliasing_when_the_prologue_does_not_check_the_inputs():
    # ThunderFX's ExtractionOnlyPrologueTransform leaves out the tensor checks of the inputs: the alias check reads only
    # exact torch.Tensors, so a Parameter on a tensor's storage does not count.
    from thunder.transforms.extraction_only_prologue_transform import ExtractionOnlyPrologueTransform

    def args(x_parameter=False, w_plain=False, alias=None):
        def make():
            x, w, b = t(5), t(5, seed=1), t(5, seed=2)
            if alias == "x and b":
                b = x.view(5)
            if alias == "w and x":
                x = w.view(5)
            x = torch.nn.Parameter(x, requires_grad=False) if x_parameter else x
            w = w if w_plain else torch.nn.Parameter(w, requires_grad=False)
            return (x, w, torch.nn.Parameter(b, requires_grad=False) if alias != "x and b" else b), {}

        return make

    calls = [
        Call(args()),
        Call(args(), expect_fast=True),
        Call(args(alias="w and x"), expect_fast=True),  # w is a Parameter: no aliasing counts
        Call(args(w_plain=True), expect_fast=True),
        Call(args(x_parameter=True), expect_fast=True),
        Call(args(alias="x and b"), expect_fast=False),  # two plain tensors on one storage
        Call(args(alias="x and b"), expect_fast=True),
        Call(args(), expect_fast=True),
    ]
    transforms = [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]
    run_differential(lambda x, w, b: x * w + b, calls, transforms=transforms)


def _leaked_batched_tensor(x):
    leaked = []
    torch.vmap(lambda a: leaked.append(a) or a)(x)
    return leaked[0]  # a BatchedTensor whose vmap has ended


_PLAIN = t(4)


@pytest.mark.parametrize(
    "n_inputs, make, through",
    [
        (1, lambda x: (x,), torch.vmap),
        (2, lambda x: (x, x + 1), torch.vmap),
        (1, lambda x: (x[0],), torch.func.grad),
        (1, lambda x: (x[0],), torch.func.functionalize),
        (1, lambda x: (_leaked_batched_tensor(x),), None),
        (1, lambda x: (x,), lambda f: torch.vmap(lambda a: f(_PLAIN) + a)),  # a plain tensor inside vmap: a hit
    ],
    ids=["vmap", "vmap_two_inputs", "grad", "functionalize", "leaked_from_vmap", "plain_inside_vmap"],
)
def test_torch_func_transforms(n_inputs, make, through):
    # functorch's wrappers have the shapes and dtypes that the prologue checks, but their storage cannot be read: the
    # cache lookup raises before it tries an entry, and a hit function must not serve them.
    fn = (lambda a: (a.sin() * 2).sum()) if n_inputs == 1 else (lambda a, b: (a.sin() * b).sum())
    plain = Call(lambda: ((t(4),) * n_inputs, {}))
    transformed = Call(lambda: (make(t(3, 4)), {}), through=through)
    run_differential(fn, [plain, transformed, Call(plain.make, expect_fast=True)])


def test_tensors_that_count_as_aliased():
    # Tensors are grouped by their storage's data pointer: every empty storage's is 0, and torch.frombuffer twice on
    # one buffer makes two storages with one data pointer.
    def shared_memory():
        buffer = bytearray(struct.pack("3f", 0.5, -1.25, 3.0))
        return (torch.frombuffer(buffer, dtype=torch.float32), torch.frombuffer(buffer, dtype=torch.float32)), {}

    separate = lambda: ((t(3), t(3, seed=1)), {})
    calls = [
        Call(separate),
        Call(shared_memory, expect_fast=False),
        Call(shared_memory, expect_fast=True),
        Call(separate, expect_fast=True),
        Call(lambda: ((torch.empty(0), torch.empty(0)), {}), expect_fast=False),
        Call(lambda: ((t(0), t(0, seed=1)), {}), expect_fast=True),
    ]
    ref, fast = run_differential(lambda a, b: a * b, calls)
    assert hits_misses(fast) == (3, 3)


def test_inference_mode_and_inference_tensors():
    def inference_tensor():
        with torch.inference_mode():
            x = t(3)
        return (x,), {}

    plain = lambda: ((t(3),), {})
    calls = [
        Call(plain, ctx=torch.no_grad),
        Call(plain, ctx=torch.inference_mode, expect_fast=True),
        Call(inference_tensor, ctx=torch.no_grad, expect_fast=True),
        Call(plain, expect_fast=False),  # grad mode on: another entry
        Call(inference_tensor, ctx=torch.inference_mode, expect_fast=True),
        Call(inference_tensor, expect_fast=True),
    ]
    run_differential(lambda a: a * 2, calls)


def test_conjugate_and_negative_bits():
    complex_tensor = lambda: ((t(3, dtype=torch.complex64),), {})
    conjugated = lambda: ((t(3, dtype=torch.complex64).conj(),), {})
    negative = lambda: ((t(3, dtype=torch.complex64).conj().imag,), {})
    calls = [Call(complex_tensor), Call(conjugated, expect_fast=True), Call(complex_tensor, expect_fast=True)]
    run_differential(lambda a: a * 2, calls)
    calls = [Call(lambda: ((t(3),), {})), Call(negative, expect_fast=True), Call(negative, expect_fast=True)]
    run_differential(lambda a: a * 2, calls)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning")
@pytest.mark.parametrize(
    "layout", [torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc, torch.sparse_coo]
)
def test_sparse_tensors(layout):
    blocksize = (2, 2) if layout in (torch.sparse_bsr, torch.sparse_bsc) else None
    sparse = lambda: (((torch.eye(4) * 3).to_sparse(layout=layout, blocksize=blocksize),), {})
    meta = lambda: ((torch.empty(4, 4, device="meta"),), {})  # another entry first: its hit function misses
    run_differential(lambda a: a * 2, [Call(meta), Call(meta), Call(sparse), Call(sparse), Call(meta)])


def test_an_entry_made_for_tensors_of_another_layout():
    # The alias check reads strided tensors only, and the prologue does not check the layout: an entry made for a
    # sparse or MKL-DNN tensor passed twice expects no aliasing, and a strided tensor passed twice misses it.
    eye = lambda: torch.eye(4) * 3
    conversions = [torch.Tensor.to_sparse] + ([torch.Tensor.to_mkldnn] if torch.backends.mkldnn.is_available() else [])
    for convert in conversions:

        def same_tensor_twice(convert=convert):
            x = convert(eye())
            return (x, x), {}

        def two_tensors(convert=convert):
            return (convert(eye()), convert(eye() * 2)), {}

        def strided_twice():
            x = eye()
            return (x, x), {}

        def strided_views_of_one_storage():
            storage = torch.arange(32.0)
            return (storage[:16].view(4, 4), storage[16:].view(4, 4)), {}

        for made_with, then in ((same_tensor_twice, strided_twice), (two_tensors, strided_views_of_one_storage)):
            calls = [Call(made_with), Call(made_with, expect_fast=True), Call(then, expect_fast=False)]
            run_differential(lambda a, b: (a * 2, b * 3), calls)


STRIDED_NESTED_SCRIPT = """
import torch, thunder

def outcome(f, *args):
    try:
        f(*args)
        result = "returned"
    except Exception as e:
        result = type(e).__name__
    return result, thunder.cache_hits(f), thunder.cache_misses(f)

def nested():
    return torch.nested.nested_tensor([torch.ones(3), torch.ones(3)])

for fastpath in (False, True):
    f = thunder.jit(lambda a, b: a * b, fastpath=fastpath)
    f(torch.ones(2, 3), torch.ones(2, 3))
    print(outcome(f, nested(), torch.ones(2, 3)), outcome(f, torch.ones(2, 3), nested()))
    module = thunder.jit(torch.nn.BatchNorm1d(3).eval(), fastpath=fastpath)
    module(torch.ones(2, 3))
    module.set_buffer("running_mean", nested())
    linear = torch.nn.Linear(3, 3)
    uses_linear = thunder.jit(lambda x: linear(x), fastpath=fastpath)
    uses_linear(torch.ones(2, 3))
    linear.weight = torch.nn.Parameter(nested())
    print(outcome(module, torch.ones(2, 3)), outcome(uses_linear, torch.ones(2, 3)))
"""


def test_strided_nested_tensors():
    # Reading a strided nested tensor's sizes in C++ aborts the process, so this runs in a subprocess.
    out = subprocess.run([sys.executable, "-c", STRIDED_NESTED_SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().split("\n")
    assert len(lines) == 4 and lines[:2] == lines[2:], out.stdout
