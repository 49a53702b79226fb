"""The generated guards and hit functions, as source (``expecttest``), and the fallback where torch lacks dynamo's
``TensorGuards``.
"""

from __future__ import annotations

import expecttest
import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    Call,
    compare_call,
    hit_source,
    hits_misses,
    newest_hit,
    t,
)


def test_guard_tells_whether_computation_inputs_require_grad():
    # The hit may leave grad mode as it is only where no tensor input requires grad (nvfuser.py's single regions).
    for requires_grad in (False, True):
        fast = thunder.jit(lambda a, b: a * b, fastpath=True)
        with torch.no_grad():
            fast(t(2, 2, requires_grad=requires_grad), t(2, 2))
        assert newest_hit(fast).guard.no_grad_inputs is not requires_grad


class TestGeneratedGuards(expecttest.TestCase):
    # Pinned sources of representative hit functions (guard, then the call); refresh with EXPECTTEST_ACCEPT=1
    # after a deliberate change.
    def test_function_guard(self):
        fast = thunder.jit(lambda a, b, n: a * b + n, fastpath=True)
        fast(t(2, 3), t(2, 3), 3)
        self.assertExpectedInline(
            hit_source(fast),
            """\
def hit(args, kwargs):
    try:
        if not (len(args) == 3): return __MISS
        if not (len(kwargs) == 0): return __MISS
        a = args[0]
        b = args[1]
        i0 = args[2]
        if not (type(i0) is int and i0 == 3): return __MISS
        if __is_grad_enabled() is not True: return __MISS
        if __is_any_autocast_enabled():
            if __is_autocast_enabled('cuda') or __is_autocast_enabled('cpu'): return __MISS
            return __DECLINE
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if a.is_nested or b.is_nested: return __MISS
        __same_layout = __observed_layout.check(a, b)
        if not (__same_layout or __tensor_guards.check(a, b)):
            __verdict = __check_tensors_slowly((a, b,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
        if a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(): return __MISS
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    __publication.served += 1
    if __publication.entry is not __entry: __publish(__entry)
    if __same_layout:
        return __computation(a, b, )[0]
    __set_grad_enabled(False)
    try:
        return __computation(a, b, )[0]
    finally:
        __set_grad_enabled(True)
""",
        )

    def test_module_guard(self):
        fast = thunder.jit(torch.nn.Linear(4, 2), fastpath=True)
        with torch.no_grad():
            fast(t(3, 4))
        self.assertExpectedInline(
            hit_source(fast),
            """\
def hit(args, kwargs):
    try:
        if not (len(args) == 1): return __MISS
        if not (len(kwargs) == 0): return __MISS
        input = args[0]
        module = __thunder_module()
        __module_overrides_parameters = module._overrides_parameters
        t_weight = __module_overrides_parameters.get('weight', __null)
        if t_weight is __null:
            t_weight = module.get_parameter('weight')
            if t_weight.is_nested: return __MISS
        t_bias = __module_overrides_parameters.get('bias', __null)
        if t_bias is __null:
            t_bias = module.get_parameter('bias')
            if t_bias.is_nested: return __MISS
        __module_dict = module.__dict__
        __module_model = __module_dict['_modules']['_model']
        i0 = __module_dict['training'] if 'training' in __module_dict else __module_model.training
        if not (type(i0) is bool and i0 == True): return __MISS
        i1 = __module_dict['in_features'] if 'in_features' in __module_dict else __module_model.in_features
        if not (type(i1) is int and i1 == 4): return __MISS
        i2 = __module_dict['out_features'] if 'out_features' in __module_dict else __module_model.out_features
        if not (type(i2) is int and i2 == 2): return __MISS
        if __is_grad_enabled() is not False: return __MISS
        if __is_any_autocast_enabled():
            if __is_autocast_enabled('cuda') or __is_autocast_enabled('cpu'): return __MISS
            return __DECLINE
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if input.is_nested: return __MISS
        if not __tensor_guards.check(input, t_weight, t_bias):
            __verdict = __check_tensors_slowly((input, t_weight, t_bias,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    __publication.served += 1
    if __publication.entry is not __entry: __publish(__entry)
    return __computation(input, t_bias, t_weight, )[0]
""",
        )

    def test_autocast_entry_hit(self):
        # An entry made under autocast: its state checked, the push that Thunder makes per call, and the computation
        # through Thunder's no_autocast decorator (autocast off inside), with grad mode as for any entry.
        fast = thunder.jit(lambda a, b: a @ b, fastpath=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fast(t(2, 3), t(3, 2))
        hit = fast._lc_fastpath_state.hits[0]
        assert hit.computation is hit.entry.computation_fn.__wrapped__  # no_autocast's layer, not no_grad's
        assert hit.computation.__code__.co_name == "no_autocast_fn"
        self.assertExpectedInline(
            hit_source(fast),
            """\
def hit(args, kwargs):
    try:
        if not (len(args) == 2): return __MISS
        if not (len(kwargs) == 0): return __MISS
        a = args[0]
        b = args[1]
        if __is_grad_enabled() is not True: return __MISS
        if __is_autocast_enabled('cuda') is not False or __is_autocast_enabled('cpu') is not True: return __MISS
        if __get_autocast_dtype('cuda') is not torch.float16 or __get_autocast_dtype('cpu') is not torch.bfloat16: return __MISS
        if __get_default_dtype() is not torch.float32: return __MISS
        if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None) and __get_default_device() != __c0: return __MISS
        if a.is_nested or b.is_nested: return __MISS
        __same_layout = __observed_layout.check(a, b)
        if not (__same_layout or __tensor_guards.check(a, b)):
            __verdict = __check_tensors_slowly((a, b,), __tensor_specs, __tensor_kinds)
            if __verdict is not True: return __verdict
        if a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(): return __MISS
    except Exception:
        return __MISS
    __cs.calls += 1
    __cs.cache_hits += 1
    __publication.served += 1
    if __publication.entry is not __entry: __publish(__entry)
    __autocast_push('cpu', __autocast_dtype, True)
    if __same_layout:
        return __computation(a, b, )[0]
    __set_grad_enabled(False)
    try:
        return __computation(a, b, )[0]
    finally:
        __set_grad_enabled(True)
""",
        )


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_entries_keep_upstreams_path_without_tensor_guards(executor, device, _, monkeypatch):
    monkeypatch.setattr(thunder.fastpath.tensor_checks, "TensorGuards", None)
    with_tensor = lambda n: Call(lambda: ((t(3).to(device), n), {}))
    f = lambda x, n: x.sin() * n
    up, fast = (
        thunder.jit(f, fastpath=False, executors=executor.executors_list()),
        thunder.jit(f, executors=executor.executors_list(), fastpath=True),
    )
    served = [compare_call(up, fast, with_tensor(n), i) for i, n in enumerate([2, 2, 3, 2, 3])]
    assert served == [False] * 5 and hits_misses(fast) == (3, 2)
    state = fast._lc_fastpath_state
    assert state.hits == () and all("TensorGuards" in reason for reason in state.unsupported)
    # An entry without tensor inputs needs no tensor guard and still gets its guard.
    numbers_only = lambda n: Call(lambda: ((n,), {}))
    up, fast = (
        thunder.jit(lambda n: torch.ones(2) * n, fastpath=False),
        thunder.jit(lambda n: torch.ones(2) * n, fastpath=True),
    )
    served = [compare_call(up, fast, numbers_only(n), i) for i, n in enumerate([2, 2, 3, 2])]
    assert served == [False, True, False, True]
