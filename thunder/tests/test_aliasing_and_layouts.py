"""Arguments that share storage, tensors of other types, layouts and dispatch keys (sparse, MKL-DNN, nested, inference,
conjugate, functorch's wrappers): the guard decides as Thunder's alias check and prologue do, or declines.
"""

from __future__ import annotations

import struct
import subprocess
import sys

import pytest
import torch

from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    Call,
    compare_call,
    hits_misses,
    run_differential,
    t,
)


# Argument pairs for the aliasing tests: two tensors of their own, one tensor twice, two views of one storage.
def fresh():
    return (t(5), t(5, seed=1)), {}


def same_twice():
    a = t(5)
    return (a, a), {}


def views_of_one_storage():
    base = t(10)
    return (base[:5], base[5:]), {}


def test_aliased_inputs():
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

    run_differential(f, calls)


def test_aliased_keyword_arguments_in_any_order():
    # Keyword arguments reach Thunder's alias check flattened by Thunder's pytree, which sorts dict keys: the same
    # tensor as b and c is "1,2" whatever order the caller gave. The entry made for it hits in any order, on the
    # fast path (the general alias check, which must read the keyword arguments too).
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
    up, fast = run_differential(lambda **kw: kw["a"] * 2 + kw["b"] - kw["c"], calls)
    assert hits_misses(up) == (4, 2) and len(fast._lc_fastpath_state.hits) == 2


def test_aliasing_when_the_prologue_does_not_check_the_inputs():
    # ThunderFX prunes the prologue's tensor checks (Dynamo guards the inputs): the guard then learns nothing about
    # the arguments' types, tests them itself for its short alias check, and falls back to the general one.
    from thunder.transforms.extraction_only_prologue_transform import ExtractionOnlyPrologueTransform

    def parameter_and_tensor():  # not exactly torch.Tensor: Thunder's alias check ignores it, so does the guard
        return (torch.nn.Parameter(t(5), requires_grad=False), t(5, seed=1)), {}

    calls = [
        Call(fresh),
        Call(fresh, expect_fast=True),
        Call(same_twice, expect_fast=False),
        Call(views_of_one_storage, expect_fast=True),
        Call(parameter_and_tensor, expect_fast=True),
        Call(fresh, expect_fast=True),
    ]
    transforms = [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]
    _, fast = run_differential(lambda a, b: a * b, calls, transforms=transforms)
    source = fast._lc_fastpath_state.hits[-1].source
    assert "is torch.Tensor and" in source and "__alias_string(args, kwargs)" in source  # both forms are there


def test_aliasing_with_parameters_as_arguments_when_the_prologue_does_not_check_them():
    # ThunderFX passes a module's parameters as arguments, under a prologue without tensor checks. Thunder's alias
    # check reads only exact torch.Tensors: the guard's short form tests that each argument is still of the kind it
    # was (a Parameter, or a plain tensor whose storage counts), and any other call takes the general form.
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
        Call(args(alias="w and x"), expect_fast=True),  # w is a Parameter: no aliasing that Thunder sees
        Call(args(w_plain=True), expect_fast=True),  # another kind: the general form decides (no aliasing)
        Call(args(x_parameter=True), expect_fast=True),
        Call(args(alias="x and b"), expect_fast=False),  # two plain tensors on one storage: a miss
        Call(args(alias="x and b"), expect_fast=True),
        Call(args(), expect_fast=True),
    ]
    transforms = [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]
    _, fast = run_differential(lambda x, w, b: x * w + b, calls, transforms=transforms)
    source = fast._lc_fastpath_state.hits[-1].source
    assert "type(w) is torch.nn.Parameter" in source and "__alias_string(args, kwargs)" in source


def test_prologue_without_checks_behaves_as_upstream():
    # PrunePrologueChecks(prune_all_checks=True) leaves the prologue no check at all, the alias check included (the
    # user vouches for the inputs): Thunder then hits its one entry whatever the shapes, dtypes or aliasing, and the
    # guard built from that prologue must neither check more nor fail to build.
    from thunder.transforms.prune_prologue_checks import PrunePrologueChecks

    other_shape = lambda: ((t(2, 3), t(2, 3, seed=1)), {})
    other_dtype = lambda: ((t(5, dtype=torch.float64), t(5, seed=1)), {})
    calls = [
        Call(fresh),
        *(Call(make, expect_fast=True) for make in (fresh, same_twice, views_of_one_storage, other_shape, other_dtype)),
    ]
    up, fast = run_differential(lambda a, b: a * b, calls, transforms=[PrunePrologueChecks(prune_all_checks=True)])
    assert hits_misses(fast) == (5, 1) and fast._lc_fastpath_state.unsupported == []


class TiedEmbeddings(torch.nn.Module):
    """A language model's weight tying: the output layer shares the embedding's Parameter (GPT-2, nanoGPT, LLaMA-2's
    small configurations), so the prologue reads one tensor under two names."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(16, 4)
        self.out = torch.nn.Linear(4, 16, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(torch.tanh(self.emb(idx)))


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_one_tensor_under_two_names_takes_the_tensor_guard(executor, device, _, monkeypatch):
    # TensorGuards fails on a tensor passed twice, which would send every hit of a weight-tied model (and of f(x, x))
    # to the slow per-tensor check. The guard checks each tensor once and the later name by identity; once the names
    # hold two tensors, the slow check decides, as the prologue does.
    from thunder.fastpath import tensor_checks

    slow_checks = []

    def counting_check(*args, _check=tensor_checks.check_tensors_slowly):
        slow_checks.append(args)
        return _check(*args)

    monkeypatch.setattr(tensor_checks, "check_tensors_slowly", counting_check)  # read when a guard is built
    torch.manual_seed(0)
    idx = lambda: ((torch.tensor([[1, 2, 3]], device=device),), {})
    calls = [Call(idx), Call(idx, expect_fast=True), Call(idx, expect_fast=True)]
    model = TiedEmbeddings().to(device).requires_grad_(False)  # inference: test_autograd.py has training
    up, fast = run_differential(model, calls, module=True, executors=executor.executors_list())
    assert fast.get_parameter("out.weight") is fast.get_parameter("emb.weight")  # still tied in the copies
    assert slow_checks == []
    # Untied: the ThunderModule keeps one of the names (the embedding's) and reads the other from the model, where a
    # new Parameter with other values now stands.
    for jitted in (up, fast):
        jitted._model.out.weight = torch.nn.Parameter(jitted.get_parameter("emb.weight") * 2, requires_grad=False)
    assert fast.get_parameter("out.weight") is not fast.get_parameter("emb.weight")
    assert compare_call(up, fast, Call(idx)) and len(slow_checks) == 1
    for jitted in (up, fast):  # another dtype under the later name alone: a miss
        jitted._model.out.weight = torch.nn.Parameter(jitted.get_parameter("emb.weight").double(), requires_grad=False)
    assert not compare_call(up, fast, Call(idx))
    # A function given one tensor twice: its hits take the tensor guard; two tensors then miss that entry.
    calls = [Call(same_twice), Call(same_twice, expect_fast=True), Call(same_twice, expect_fast=True)]
    slow_checks.clear()
    up, fast = run_differential(lambda a, b: a * b + a, calls, executors=executor.executors_list())
    assert slow_checks == []
    assert not compare_call(up, fast, Call(fresh)) and len(slow_checks) == 1

    # Self-attention: one tensor as query, key and value of nn.MultiheadAttention.
    def self_attention():
        q = torch.randn(1, 4, 8, generator=torch.Generator().manual_seed(0)).to(device)
        return (q, q, q), {"need_weights": False}

    slow_checks.clear()
    attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval().to(device)
    calls = [Call(self_attention, ctx=torch.no_grad)] + [Call(self_attention, ctx=torch.no_grad, expect_fast=True)] * 2
    run_differential(attention, calls, module=True, executors=executor.executors_list())
    assert slow_checks == []


def test_in_place_update_of_an_input():
    make = lambda: ((t(4), t(4, seed=1)), {})

    def f(a, b):
        a.add_(b)
        return a * 2

    run_differential(f, [Call(make), Call(make, expect_fast=True), Call(make, expect_fast=True)])


_PLAIN = t(4)


def _leaked_batched_tensor(x):
    leaked = []
    torch.vmap(lambda a: leaked.append(a) or a)(x)
    return leaked[0]  # a BatchedTensor whose vmap has ended


@pytest.mark.parametrize(
    "n_inputs, make, through",
    [
        (1, lambda x: (x,), torch.vmap),
        (2, lambda x: (x, x + 1), torch.vmap),
        (1, lambda x: (x[0],), torch.func.grad),
        (1, lambda x: (x[0],), torch.func.functionalize),
        (1, lambda x: (_leaked_batched_tensor(x),), None),
        (1, lambda x: (x,), lambda f: torch.vmap(lambda a: f(_PLAIN) + a)),  # a plain tensor inside vmap: hits
    ],
    ids=["vmap", "vmap_two_inputs", "grad", "functionalize", "leaked_from_vmap", "plain_inside_vmap"],
)
def test_torch_func_transforms_behave_as_upstream(n_inputs, make, through):
    # functorch's wrapped tensors have the shapes and dtypes that the prologue checks, but Thunder's alias detection
    # cannot read their storage pointers and raises before trying any entry; a guard (whose slow tensor check accepts
    # other dispatch keys) must not hit them and return a result.
    fn = (lambda a: (a.sin() * 2).sum()) if n_inputs == 1 else (lambda a, b: (a.sin() * b).sum())
    plain = Call(lambda: ((t(4),) * n_inputs, {}))
    transformed = Call(lambda: (make(t(3, 4)), {}), through=through)
    run_differential(fn, [plain, transformed, Call(plain.make, expect_fast=True)])


def test_empty_tensors_count_as_aliased_like_upstream():
    # Thunder groups tensors by storage pointer, and every empty storage's pointer is 0.
    empty_pair = lambda: ((torch.empty(0), torch.empty(0)), {})
    calls = [
        Call(empty_pair),
        Call(empty_pair, expect_fast=True),
        Call(lambda: ((t(0), t(0, seed=1)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a + b, calls)


def test_separate_storages_of_one_memory_count_as_aliased_like_upstream():
    # torch.frombuffer twice on one buffer: two storage objects (torch._C._storage_address differs) with one data
    # pointer, by which Thunder groups tensors. A guard comparing storage objects would hit the unaliased entry.
    def shared_memory():
        buffer = bytearray(struct.pack("3f", 0.5, -1.25, 3.0))
        return (torch.frombuffer(buffer, dtype=torch.float32), torch.frombuffer(buffer, dtype=torch.float32)), {}

    separate = lambda: ((t(3), t(3, seed=1)), {})
    calls = [
        Call(separate),
        Call(shared_memory, expect_fast=False),  # aliased: another entry, as Thunder
        Call(shared_memory, expect_fast=True),
        Call(separate, expect_fast=True),
    ]
    up, fast = run_differential(lambda a, b: a * b, calls)
    assert hits_misses(fast) == (2, 2)


def test_inference_mode_and_inference_tensors():
    def inference_tensor():
        with torch.inference_mode():
            x = t(3)
        return (x,), {}

    plain = lambda: ((t(3),), {})
    calls = [
        Call(plain, ctx=torch.no_grad),
        # other dispatch keys than the guard was built with: the slow tensor check decides (a hit, as Thunder)
        Call(plain, ctx=torch.inference_mode, expect_fast=True),
        Call(inference_tensor, ctx=torch.no_grad, expect_fast=True),
        Call(plain, expect_fast=False),  # grad mode on: another entry
        Call(inference_tensor, ctx=torch.inference_mode, expect_fast=True),
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
def test_tensors_without_strides_keep_upstreams_path():
    # Sparse compressed tensors (CSR, CSC, BSR, BSC) have no strides, which the guard's layout check pins: an entry
    # made for them keeps Thunder's path instead of failing the call that made it. COO has strides and is guarded.
    eye = lambda: torch.eye(4) * 3
    kinds = {
        "csr": lambda: eye().to_sparse_csr(),
        "csc": lambda: eye().to_sparse_csc(),
        "bsr": lambda: eye().to_sparse_bsr((2, 2)),
        "bsc": lambda: eye().to_sparse_bsc((2, 2)),
        "coo": lambda: eye().to_sparse(),
    }
    for name, make in kinds.items():
        one = lambda make=make: ((make(),), {})
        meta = lambda: ((torch.empty(4, 4, device="meta"),), {})  # another entry first: its guard misses on `make`
        guarded = name == "coo"
        calls = [Call(meta), Call(meta, expect_fast=True), Call(one, expect_fast=False), Call(one, expect_fast=guarded)]
        _, fast = run_differential(lambda a: a * 2, calls)
        unsupported = fast._lc_fastpath_state.unsupported
        assert (unsupported == []) if guarded else ("without strides" in unsupported[0]), (name, unsupported)


def test_an_entry_made_for_tensors_of_another_layout_behaves_as_upstream():
    # Thunder's alias detection reads strided tensors only, and its prologue does not check the layout: an entry made
    # for one sparse (COO) or MKL-DNN tensor passed twice, or for two of them, expects no aliasing, and a later call
    # with one strided tensor passed twice, or with two views of one storage, misses it. The guard's alias check
    # covers the positions that held strided tensors when it was built, so another layout must not pass its tensor
    # check.
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

        def views_of_one_storage():
            storage = torch.arange(32.0)
            return (storage[:16].view(4, 4), storage[16:].view(4, 4)), {}

        for made_with, then in ((same_tensor_twice, strided_twice), (two_tensors, views_of_one_storage)):
            calls = [Call(made_with), Call(made_with, expect_fast=True), Call(then, expect_fast=False)]
            run_differential(lambda a, b: (a * 2, b * 3), calls)


STRIDED_NESTED_SCRIPT = """
import torch, thunder, thunder.fastpath

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
    f(torch.ones(3, 3), torch.ones(3, 3))  # two shapes: the dispatcher's index by the first argument's shape too
    print(outcome(f, nested(), torch.ones(2, 3)), outcome(f, torch.ones(2, 3), nested()))
    module = thunder.jit(torch.nn.BatchNorm1d(3).eval(), fastpath=fastpath)
    module(torch.ones(2, 3))
    module.set_buffer("running_mean", nested())  # ThunderModule's public setter, read by the guard
    linear = torch.nn.Linear(3, 3)
    uses_linear = thunder.jit(lambda x: linear(x), fastpath=fastpath)  # reads the live module's parameters
    uses_linear(torch.ones(2, 3))
    linear.weight = torch.nn.Parameter(nested())
    print(outcome(module, torch.ones(2, 3)), outcome(uses_linear, torch.ones(2, 3)))
"""


def test_strided_nested_tensors_miss_like_upstream():
    # dynamo's TensorGuards reads each tensor's strides, and a strided nested tensor's raise a C++ error that aborts
    # the process there; the guard must not hand it one. In a subprocess, which such an abort would end.
    out = subprocess.run([sys.executable, "-c", STRIDED_NESTED_SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().split("\n")
    upstream, fast = lines[:2], lines[2:]
    assert upstream == fast and len(fast) == 2, out.stdout
