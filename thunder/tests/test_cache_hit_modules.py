"""Cache hit functions of jitted modules and other callables: parameters, buffers and attributes, train/eval, hooks
(``ThunderModule.__call__`` skips ``nn.Module.__call__`` only where that would just call forward), tied weights,
submodules changed after ``thunder.jit``, callable objects and modules read from a function's globals or closure.
"""

from __future__ import annotations

import contextlib
import copy
import functools

import pytest
import torch

import thunder
from thunder.tests.cache_hit_harness import (
    EXECUTORS,
    Call,
    assert_bitwise,
    compare_call,
    hits_misses,
    run_differential,
    served_by_hit_fn,
    t,
)
from thunder.tests.framework import NOTHING, instantiate


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.register_buffer("shift", torch.full((4,), 0.5))
        self.scale = 2.0

    def forward(self, x):
        return self.bn(self.lin(x)) * self.scale + self.shift


def jitted_pair(module, **jit_options):
    """``module`` jitted without and with the fast path, each a copy."""
    return tuple(thunder.jit(copy.deepcopy(module), fastpath=fp, **jit_options) for fp in (False, True))


def test_parameters_buffers_attributes_and_train_eval():
    torch.manual_seed(0)
    ref, fast = jitted_pair(Net())
    x = lambda: ((t(3, 4),), {})

    def both(change=None, *, expect_fast):
        for m in (ref, fast) if change else ():
            change(m)
        assert compare_call(ref, fast, Call(x)) == expect_fast
        assert_bitwise(dict(ref.named_buffers()), dict(fast.named_buffers()))  # BatchNorm's running statistics

    def set_parameter(name, value):
        return lambda m: setattr(m._model.lin, name, torch.nn.Parameter(value))

    both(expect_fast=False)
    both(expect_fast=True)
    both(lambda m: m.eval(), expect_fast=False)
    both(expect_fast=True)
    both(lambda m: (m.train(), setattr(m._model, "scale", 3.0)), expect_fast=False)  # an attribute the prologue checks
    both(expect_fast=True)
    both(lambda m: m._model.lin.weight.data.mul_(0.5), expect_fast=True)  # updated in place
    # Replaced in the model: the ThunderModule keeps the parameters it had when it was made
    both(set_parameter("bias", torch.zeros(4)), expect_fast=True)
    both(lambda m: m._model.lin.weight.requires_grad_(False), expect_fast=False)
    both(expect_fast=True)
    both(lambda m: m.set_buffer("shift", torch.full((4,), 1.5)), expect_fast=True)  # the ThunderModule's own buffer
    both(lambda m: m.get_parameter("lin.bias").data.fill_(2.0), expect_fast=True)
    assert hits_misses(fast) == (8, 4)


class ScaledByBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((4,), 2.0))

    def forward(self, x):
        return x * self.scale


@pytest.mark.parametrize("converted", ["model", "thunder_module", "set_buffer"])
def test_entries_whose_prologue_fails_on_their_first_call(converted):
    # After converting the buffer to float64, the trace reads the model's float64 buffer but the prologue checks the
    # ThunderModule's float32 copy (or the other way round): each call compiles an entry whose prologue then fails.
    ref, fast = jitted_pair(ScaledByBuffer())
    x = lambda dtype: Call(lambda: ((t(4, dtype=dtype),), {}), expect_fast=False)
    compare_call(ref, fast, x(torch.float32))
    for m in (ref, fast):
        if converted == "set_buffer":
            m.set_buffer("scale", torch.full((4,), 2.0, dtype=torch.float64))
        else:
            (m if converted == "thunder_module" else m._model).double()
    dtype = torch.float32 if converted == "set_buffer" else torch.float64
    for i in range(1, 4):
        assert not compare_call(ref, fast, x(dtype), i)
    assert hits_misses(fast) == (0, 4)
    with pytest.raises(AssertionError, match="expected tensor"):
        fast(t(4, dtype=dtype))


# torch.jit.trace warns that it is deprecated and records Python conditions as constants
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::torch.jit.TracerWarning")
def test_hooks_torch_jit_trace_and_instance_forward():
    torch.manual_seed(0)
    ref, fast = jitted_pair(torch.nn.Linear(4, 2))
    assert type(fast) is thunder.core.module.ThunderModule and repr(ref) == repr(fast)
    x = lambda: ((t(3, 4),), {})
    seen = []
    assert not compare_call(ref, fast, Call(x))
    assert compare_call(ref, fast, Call(x))
    handles = [m.register_forward_pre_hook(lambda mod, args: seen.append(mod._get_name())) for m in (ref, fast)]
    handles += [m.register_forward_hook(lambda mod, args, out: out * 2) for m in (ref, fast)]
    assert compare_call(ref, fast, Call(x))  # the hooks run around a hit
    assert seen == ["ThunderModule"] * 2
    for h in handles:
        h.remove()
    global_hook = torch.nn.modules.module.register_module_forward_hook(lambda mod, args, out: out + 1)
    try:
        assert compare_call(ref, fast, Call(x))
    finally:
        global_hook.remove()
    # torch.jit.trace records module scopes through nn.Module.__call__, and fails on a ThunderModule
    errors = []
    for m in (ref, fast):
        with pytest.raises(Exception) as info:
            torch.jit.trace(m, x()[0])
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[0] == errors[1] and hits_misses(ref) == hits_misses(fast)
    assert compare_call(ref, fast, Call(x))
    for m in (ref, fast):
        m.forward = lambda x: torch.zeros(1)  # an instance attribute: nn.Module.__call__ calls it
    assert_bitwise(ref(*x()[0]), fast(*x()[0]))
    assert fast(*x()[0]).shape == (1,)
    for m in (ref, fast):
        m._forward_fn = lambda *args, **kwargs: ("replaced", args, kwargs)
    del fast.forward, ref.forward
    assert ref(1, k=2) == fast(1, k=2) == ("replaced", (1,), {"k": 2})


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_backward_hooks(executor, device, _):
    # nn.Module.__call__ sets up module backward hooks around forward (BackwardHook on inputs and outputs).
    torch.manual_seed(0)
    ref, fast = jitted_pair(torch.nn.Linear(4, 2).to(device), executors=executor.executors_list())
    leaf_input = lambda seed: t(3, 4, seed=seed).to(device).requires_grad_()
    for _ in range(2):
        assert_bitwise(ref(leaf_input(0)), fast(leaf_input(0)))
    seen = {id(ref): [], id(fast): []}
    for m in (ref, fast):
        m.register_full_backward_pre_hook(lambda mod, grad_out: seen[id(mod)].append("pre"))
        m.register_full_backward_hook(lambda mod, grad_in, grad_out: seen[id(mod)].append(tuple(grad_in[0].shape)))
    grads = []
    for m in (ref, fast):
        x = leaf_input(1)
        m(x).sum().backward()
        grads.append(x.grad)
    assert_bitwise(grads[0], grads[1])
    assert seen[id(ref)] == seen[id(fast)] == ["pre", (3, 4)]
    assert hits_misses(ref) == hits_misses(fast) == (2, 1) and served_by_hit_fn(fast)


class TiedEmbeddings(torch.nn.Module):
    """Weight tying: the output layer shares the embedding's Parameter, which the prologue reads under two names."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(16, 4)
        self.out = torch.nn.Linear(4, 16, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(torch.tanh(self.emb(idx)))


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_tied_weights_and_one_tensor_under_several_names(executor, device, _):
    torch.manual_seed(0)
    executors = executor.executors_list()
    idx = lambda: ((torch.tensor([[1, 2, 3]], device=device),), {})
    model = TiedEmbeddings().to(device).requires_grad_(False)
    ref, fast = run_differential(model, [Call(idx)] * 3, module=True, executors=executors)
    assert fast.get_parameter("out.weight") is fast.get_parameter("emb.weight")
    # Untied: the ThunderModule keeps the embedding's and reads the other name from the model.
    for m in (ref, fast):
        m._model.out.weight = torch.nn.Parameter(m.get_parameter("emb.weight") * 2, requires_grad=False)
    assert compare_call(ref, fast, Call(idx))
    for m in (ref, fast):  # another dtype under the later name alone: a miss, which raises while tracing
        m._model.out.weight = torch.nn.Parameter(m.get_parameter("emb.weight").double(), requires_grad=False)
    assert not compare_call(ref, fast, Call(idx))

    def self_attention():
        q = t(1, 4, 8).to(device)
        return (q, q, q), {"need_weights": False}

    attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval().to(device)
    calls = [Call(self_attention, ctx=torch.no_grad)] * 3
    ref, fast = run_differential(attention, calls, module=True, executors=executors)
    assert hits_misses(fast) == (2, 1)


class Scale:
    def __init__(self):
        self.k = 2.0

    def __call__(self, a):
        return a * self.k

    def shift(self, a):
        return a + self.k


def input_4x3():
    return (t(4, 3),), {}


def after(change, make=input_4x3):
    """A call's inputs, made after ``change`` (once per callable: it must set a value, not add to one)."""

    def change_then_make():
        change()
        return make()

    return change_then_make


def set_weight(module):
    with torch.no_grad():
        module.weight.fill_(0.5)


@pytest.mark.parametrize(
    "make, mutate",
    [
        (lambda: (s := Scale(), s), lambda s: setattr(s, "k", 5.0)),
        (lambda: (s := Scale(), s.shift), lambda s: setattr(s, "k", 5.0)),
        (lambda: (None, functools.partial(lambda a, k: a * k, k=3.0)), lambda _: None),
        (lambda: (m := torch.nn.Linear(3, 2), m.forward), set_weight),  # found through get_thunder_module
    ],
    ids=["callable_object", "bound_method", "partial", "module_forward"],
)
def test_other_kinds_of_callables(make, mutate):
    obj, fn = make()  # one object for both: run_differential jits the same callable twice
    calls = [Call(input_4x3), Call(input_4x3), Call(after(lambda: mutate(obj))), Call(input_4x3), Call(input_4x3)]
    ref, fast = run_differential(fn, calls)
    assert thunder.cache_hits(fast) >= 3


_GLOBAL_LINEAR = torch.nn.Linear(3, 2)


def uses_global_linear(a):
    return _GLOBAL_LINEAR(a) * 2


class UsesGlobalLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(3, 3)

    def forward(self, a):
        return _GLOBAL_LINEAR(self.inner(a))


def test_modules_read_from_globals_or_a_closure():
    global _GLOBAL_LINEAR
    lin = torch.nn.Linear(3, 2)

    def uses_closure_linear(a):
        return lin(a) + 1

    def rebind_global():
        global _GLOBAL_LINEAR
        torch.manual_seed(3)  # the same new module for both callables
        _GLOBAL_LINEAR = torch.nn.Linear(3, 5)

    frozen_weight = lambda: setattr(lin, "weight", torch.nn.Parameter(t(2, 3, seed=2), requires_grad=False))
    frozen_global = lambda: setattr(
        _GLOBAL_LINEAR, "weight", torch.nn.Parameter(t(*_GLOBAL_LINEAR.weight.shape, seed=2), requires_grad=False)
    )
    try:
        for fn, changes, module in [
            (uses_global_linear, [_GLOBAL_LINEAR.eval, rebind_global], False),
            (uses_closure_linear, [lin.eval, frozen_weight], False),
            (UsesGlobalLinear(), [lambda: _GLOBAL_LINEAR.eval(), frozen_global], True),
        ]:
            calls = [
                Call(input_4x3, torch.no_grad, expect_fast=False),
                Call(input_4x3, torch.no_grad, expect_fast=True),
            ]
            for change in changes:
                calls += [Call(after(change), torch.no_grad, False), Call(input_4x3, torch.no_grad, expect_fast=True)]
            run_differential(fn, calls, module=module)
    finally:
        _GLOBAL_LINEAR = torch.nn.Linear(3, 2)


def _hook_doubling_output(module):
    module.register_forward_hook(lambda mod, args, out: out * 2)


class _Doubled(torch.nn.Module):
    def forward(self, weight):
        return weight * 2


@pytest.mark.parametrize(
    "hooked_from_start, change",
    [
        (False, lambda model: model.__setitem__(1, torch.nn.GELU())),
        (False, lambda model: _hook_doubling_output(model[0])),
        (True, lambda model: model[0]._forward_hooks.clear()),
        (False, lambda model: setattr(model[0], "forward", lambda x: torch.nn.functional.linear(x, model[0].weight))),
        (False, lambda model: setattr(model[0], "bias", None)),
        (False, lambda model: torch.nn.utils.parametrize.register_parametrization(model[0], "weight", _Doubled())),
    ],
    ids=["swapped", "hook_added", "hook_removed", "forward_replaced", "bias_removed", "parametrized"],
)
def test_submodule_changed_after_jit(hooked_from_start, change):
    # A ThunderModule finds submodules in _module_cache and parameters in its own copies, made by thunder.jit, and
    # the prologue checks no submodule's hooks or instance forward: the entry traced before the change still hits.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    if hooked_from_start:
        _hook_doubling_output(model[0])
    ref, fast = jitted_pair(model)
    x = t(2, 4) - 1
    traced = model(x)
    for m in (ref, fast):
        m(x), m(x)
        change(m._model)
    assert compare_call(ref, fast, Call(lambda: ((x,), {})))
    assert hits_misses(fast) == (2, 1)
    assert not torch.equal(ref._model(x), traced)  # eager sees the change
    assert torch.equal(ref(x), traced)  # the jitted model does not; when this fails, Thunder changed


@pytest.mark.skipif(not torch.distributed.is_available(), reason="needs torch.distributed")
def test_data_parallel_grad_sync_skipping(tmp_path):
    # skip_data_parallel_grad_sync() is part of the cache key of a module under thunder.distributed.ddp, here on a
    # one-process gloo group: entering it misses once, then hits; leaving it hits the first entry again.
    import torch.distributed as tdist

    import thunder.distributed as dist

    tdist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        linear, x = torch.nn.Linear(4, 3), t(2, 4)
        rows = {}
        for fastpath in (False, True):
            ddp = dist.ddp(thunder.jit(copy.deepcopy(linear), fastpath=fastpath))
            rows[fastpath] = []
            for skip in (False, False, True, True, False):
                with dist.skip_data_parallel_grad_sync() if skip else contextlib.nullcontext():
                    ddp(x).sum().backward()
                rows[fastpath].append((hits_misses(ddp), served_by_hit_fn(ddp)))
                rows[fastpath].append([p.grad.clone() for p in ddp.parameters()])
    finally:
        tdist.destroy_process_group()
    assert_bitwise(rows[False][1::2], rows[True][1::2])
    counts = [(0, 1), (1, 1), (1, 2), (2, 2), (3, 2)]
    assert rows[False][::2] == [(c, False) for c in counts]
    assert rows[True][::2] == [(c, served) for c, served in zip(counts, [False, True, False, True, True], strict=True)]


def test_materialization_of_a_module_made_on_the_meta_device():
    from thunder.transforms.materialization import MaterializationTransform

    torch.manual_seed(0)
    with torch.device("meta"):
        meta_linear = torch.nn.Linear(4, 3)
    inits = [
        MaterializationTransform.init_from_original_module_init(),
        MaterializationTransform.init_from_original_state_dict(torch.nn.Linear(4, 3).state_dict()),
    ]
    dtypes = [torch.float32, torch.float32, torch.float64, torch.float32]
    for init in inits:
        jitted = []
        for fastpath in (False, True):
            torch.manual_seed(1)  # the module's own init draws from the global generator
            transforms = [MaterializationTransform("cpu", init=init)]
            jitted.append(thunder.jit(copy.deepcopy(meta_linear), fastpath=fastpath, transforms=transforms))
        served = [compare_call(*jitted, Call(lambda d=d: ((t(2, 4, dtype=d),), {}), ctx=torch.no_grad)) for d in dtypes]
        assert served == [False, True, False, True]
