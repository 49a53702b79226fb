"""Jitted modules and other callables: parameters, buffers and attributes, train/eval, hooks, ``torch.jit`` tracing,
data-parallel gradient sync, callable objects and functions that use a module from their globals or a closure.
"""

from __future__ import annotations

import copy
import functools
from contextlib import nullcontext

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    Call,
    assert_bitwise,
    hits_misses,
    run_differential,
    t,
    took_fast_path,
)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.scale = 2.0

    def forward(self, x):
        return self.bn(self.lin(x)) * self.scale


def test_module_parameters_buffers_attributes_and_train_eval():
    torch.manual_seed(0)
    net = Net()
    up = thunder.jit(copy.deepcopy(net), fastpath=False)
    fast = thunder.jit(copy.deepcopy(net), fastpath=True)
    x = t(3, 4)

    def both(expect_fast=None, ctx=nullcontext):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        with ctx():
            a, b = up(x), fast(x)
        assert_bitwise(a, b)
        assert_bitwise(dict(up.named_buffers()), dict(fast.named_buffers()))
        assert hits_misses(up) == hits_misses(fast)
        if expect_fast is not None:
            assert took_fast_path(fast) == expect_fast

    both()
    both(True)
    both(False, ctx=torch.no_grad)  # grad mode is part of the entry: a miss...
    both(True, ctx=torch.no_grad)  # ...then a hit
    for m in (up, fast):
        m.eval()
    both(False)
    both(True)
    for m in (up, fast):
        m.train()
        m._model.scale = 3.0  # a Python attribute the prologue checks
    both(False)
    both(True)
    with torch.no_grad():  # parameters updated in place
        for m in (up, fast):
            m._model.lin.weight.mul_(0.5)
    both(True)
    for m in (up, fast):  # parameters replaced
        m._model.lin.bias = torch.nn.Parameter(torch.zeros(4))
    both()
    for m in (up, fast):  # a parameter that no longer requires grad
        m._model.lin.weight.requires_grad_(False)
    both(False)
    both(True)


def test_module_call_honours_hooks_and_instance_forward():
    # The fast module call skips nn.Module.__call__ only while that would do nothing but call forward.
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 2)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True)
    assert type(up) is thunder.core.module.ThunderModule and isinstance(fast, thunder.core.module.ThunderModule)
    assert repr(up) == repr(fast)
    x = t(3, 4)
    seen = []

    def both(expect_fast):
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        assert_bitwise(up(x), fast(x))
        assert hits_misses(up) == hits_misses(fast)
        assert took_fast_path(fast) == expect_fast

    both(False)
    both(True)
    handles = [m.register_forward_pre_hook(lambda mod, args: seen.append(("pre", mod._get_name()))) for m in (up, fast)]
    handles += [m.register_forward_hook(lambda mod, args, out: out * 2) for m in (up, fast)]  # changes the result
    both(True)  # the hooks run around a cache hit
    assert seen == [("pre", "ThunderModule"), ("pre", "ThunderModule")]
    for h in handles:
        h.remove()
    global_hook = torch.nn.modules.module.register_module_forward_hook(lambda mod, args, out: out + 1)
    try:
        both(True)
    finally:
        global_hook.remove()
    for m in (up, fast):
        m.forward = lambda x: torch.zeros(1)  # an instance attribute: nn.Module.__call__ calls it
    assert_bitwise(up(x), fast(x))
    assert fast(x).shape == (1,)


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_module_call_honours_backward_hooks(executor, device, _):
    # Module backward hooks are set up by nn.Module.__call__ around forward (BackwardHook on inputs and outputs):
    # with one registered, the fast module must hand its calls to nn.Module.__call__.
    executors = executor.executors_list()
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 2).to(device)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False, executors=executors)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True, executors=executors)

    def leaf_input(seed):
        return t(3, 4, seed=seed).to(device).requires_grad_()

    for _ in range(2):
        assert_bitwise(up(leaf_input(0)), fast(leaf_input(0)))
    seen = {id(up): [], id(fast): []}
    for m in (up, fast):
        m.register_full_backward_pre_hook(lambda mod, grad_out: seen[id(mod)].append("pre"))
        m.register_full_backward_hook(lambda mod, grad_in, grad_out: seen[id(mod)].append(tuple(grad_in[0].shape)))
    grads = []
    for m in (up, fast):
        x = leaf_input(1)
        m(x).sum().backward()
        grads.append(x.grad)
    assert_bitwise(grads[0], grads[1])
    assert seen[id(up)] == seen[id(fast)] == ["pre", (3, 4)]
    assert hits_misses(up) == hits_misses(fast)


# torch.jit.trace is deprecated and warns that it records Python conditions (ours and Thunder's) as constants.
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::torch.jit.TracerWarning")
def test_module_call_under_torch_jit_trace_and_with_a_replaced_forward_fn():
    # torch.jit.trace (which records module scopes through nn.Module.__call__, where the fast module sends such
    # calls) may fail on a ThunderModule: then with the same error and the same cache statistics both ways.
    lin = torch.nn.Linear(4, 2)
    up = thunder.jit(copy.deepcopy(lin), fastpath=False)
    fast = thunder.jit(copy.deepcopy(lin), fastpath=True)
    x = t(3, 4)
    for _ in range(2):
        assert_bitwise(up(x), fast(x))
    errors = []
    for m in (up, fast):
        with pytest.raises(Exception) as info:
            torch.jit.trace(m, x)
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[0] == errors[1]
    assert hits_misses(up) == hits_misses(fast)
    assert_bitwise(up(x), fast(x))
    assert hits_misses(up) == hits_misses(fast)
    # A _forward_fn set after thunder.jit is what the module calls, as Thunder's forward would.
    for m in (up, fast):
        m._forward_fn = lambda *args, **kwargs: ("replaced", args, kwargs)
    assert up(x, k=1) == fast(x, k=1) == ("replaced", (x,), {"k": 1})


@pytest.mark.skipif(not torch.distributed.is_available(), reason="needs torch.distributed")
def test_data_parallel_grad_sync_skipping_like_upstream(tmp_path):
    # thunder.distributed.ddp on a one-process gloo group: skip_data_parallel_grad_sync() is part of the cache
    # key (cache_info["no_grad_sync"]), so entering it must miss once and then hit, and leaving it must hit the
    # first entry again, with Thunder's gradients.
    import torch.distributed as tdist

    import thunder.distributed as dist

    tdist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        linear, x = torch.nn.Linear(4, 3), t(2, 4)
        rows = {}
        for fastpath in (False, True):
            ddp = dist.ddp(thunder.jit(copy.deepcopy(linear), fastpath=fastpath))
            assert thunder.fastpath.is_fast(ddp) == fastpath
            rows[fastpath], served_fast = [], []
            for skip in (False, False, True, True, False):
                took_fast_path.stamp = thunder.compile_stats(ddp).last_trace_host_start
                with dist.skip_data_parallel_grad_sync() if skip else nullcontext():
                    ddp(x).sum().backward()
                served_fast.append(took_fast_path(ddp))
                rows[fastpath].append((hits_misses(ddp), [p.grad.clone() for p in ddp.parameters()]))
            assert served_fast == ([False, True, False, True, True] if fastpath else [False] * 5)
    finally:
        tdist.destroy_process_group()
    assert [r[0] for r in rows[True]] == [r[0] for r in rows[False]] == [(0, 1), (1, 1), (1, 2), (2, 2), (3, 2)]
    for (_, up), (_, fast) in zip(rows[False], rows[True], strict=False):
        assert_bitwise(up, fast)


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
    """A Call's inputs, made after ``change`` (which runs once per system, so it must set a value rather than add
    to one)."""

    def change_then_make():
        change()
        return make()

    return change_then_make


def set_k(obj):
    obj.k = 5.0


def set_weight(module):
    with torch.no_grad():
        module.weight.fill_(0.5)


@pytest.mark.parametrize(
    "make, mutate, served_fast",
    [
        (lambda: (s := Scale(), s), set_k, True),  # a callable object whose attribute changes
        (lambda: (s := Scale(), s.shift), set_k, True),  # a bound method
        (lambda: (None, functools.partial(lambda a, k: a * k, k=3.0)), lambda _: None, True),
        # A module's forward jitted as a function: its prologue looks the module up through get_thunder_module.
        (lambda: (m := torch.nn.Linear(3, 2), m.forward), set_weight, True),
    ],
    ids=["callable_object", "bound_method", "partial", "module_forward"],
)
def test_other_kinds_of_callables(make, mutate, served_fast):
    # Whatever the prologue reads through the function object (attributes, bound self, partial arguments,
    # parameters) decides hits as Thunder's prologue does.
    obj, fn = make()  # one object for both systems: run_differential jits the same callable twice
    x = input_4x3
    calls = [
        Call(x),
        Call(x, expect_fast=served_fast),
        Call(after(lambda: mutate(obj))),
        Call(x, expect_fast=served_fast),
        Call(x, expect_fast=served_fast),
    ]
    _, fast = run_differential(fn, calls)
    assert thunder.cache_hits(fast) >= 3  # calls 1, 3 and 4 at least (2 too where the mutation keeps the key)
    assert bool(fast._lc_fastpath_state.unsupported) != served_fast


def test_module_forward_jitted_as_a_function():
    # thunder.jit(model.forward) reads the module through get_thunder_module (the module itself: there is no
    # ThunderModule for it): its training flag, replaced parameters and a parameter set to None decide hits and
    # misses as Thunder's prologue decides them.
    m = torch.nn.Linear(3, 2)
    x = input_4x3
    frozen_weight = lambda: setattr(m, "weight", torch.nn.Parameter(t(2, 3, seed=2), requires_grad=False))
    calls = [
        Call(x),
        Call(x, expect_fast=True),
        Call(after(m.eval)),
        Call(x, expect_fast=True),
        Call(after(m.train), expect_fast=True),  # the first entry again
        Call(after(frozen_weight)),
        Call(x, expect_fast=True),
        Call(after(lambda: setattr(m, "bias", None))),
        Call(x, expect_fast=True),
    ]
    _, fast = run_differential(m.forward, calls)
    assert not fast._lc_fastpath_state.unsupported


_GLOBAL_LINEAR = torch.nn.Linear(3, 2)


def uses_global_linear(a):
    return _GLOBAL_LINEAR(a) * 2


class UsesGlobalLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(3, 3)

    def forward(self, a):
        return _GLOBAL_LINEAR(self.inner(a))


def test_functions_that_use_a_module_from_their_globals_or_closure():
    # The prologue reaches such a module through the function's globals or closure and get_thunder_module (for a
    # jitted module, next to its own ThunderModule); a module rebound, switched to eval or with a parameter
    # replaced decides hits and misses as Thunder's.
    global _GLOBAL_LINEAR
    lin = torch.nn.Linear(3, 2)

    def uses_closure_linear(a):
        return lin(a) + 1

    x = input_4x3

    def rebind_global():
        global _GLOBAL_LINEAR
        torch.manual_seed(3)  # the same new module for both systems
        _GLOBAL_LINEAR = torch.nn.Linear(3, 5)

    frozen_weight = lambda: setattr(lin, "weight", torch.nn.Parameter(t(2, 3, seed=2), requires_grad=False))
    frozen_global = lambda: setattr(
        _GLOBAL_LINEAR, "weight", torch.nn.Parameter(t(*_GLOBAL_LINEAR.weight.shape, seed=2), requires_grad=False)
    )
    for fn, changes, module in [
        (uses_global_linear, [_GLOBAL_LINEAR.eval, rebind_global], False),
        (uses_closure_linear, [lin.eval, frozen_weight], False),
        (UsesGlobalLinear(), [lambda: _GLOBAL_LINEAR.eval(), frozen_global], True),
    ]:
        calls = [Call(x), Call(x, expect_fast=True)]
        for change in changes:
            calls += [Call(after(change)), Call(x, expect_fast=True)]
        _, fast = run_differential(fn, calls, module=module)
        assert not (fast._forward_fn if module else fast)._lc_fastpath_state.unsupported
    _GLOBAL_LINEAR = torch.nn.Linear(3, 2)
