"""What each line of two_8x8's guard costs on its own, and the exact alternatives tried (ns per statement, minimum of
seven timeit repeats). Not an upstream/fast comparison: the parts of one fast-path hit (hit_breakdown.py times the
whole guard against the computation).

Usage: python guard_line_costs.py
"""

import timeit

import torch
from torch._C._dynamo.guards import GlobalStateGuard, TensorGuards

a, b = torch.randn(8, 8), torch.randn(8, 8)
args = (a, b)
global_state = GlobalStateGuard()
tensor_guards = TensorGuards(a, b, dynamic_dims_sizes=[[8, 8], [8, 8]], dynamic_dims_strides=[[8, 1], [8, 1]])
len_function_stack = torch._C._len_torch_function_stack
device_context = torch._GLOBAL_DEVICE_CONTEXT
is_grad_enabled, any_autocast, default_dtype = (
    torch.is_grad_enabled, torch._C._is_any_autocast_enabled, torch.get_default_dtype)
f32 = torch.float32

STATEMENTS = [
    "pass",
    "len(args) == 2",
    "args[0]; args[1]",
    "global_state.check()",
    "len_function_stack() or device_context.__dict__.get('device_context') is not None",
    "a.is_nested or b.is_nested",
    "tensor_guards.check(a, b)",
    "a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()",
    # alternatives: three exact state queries instead of global_state.check(); storage identity (not upstream's
    # data-pointer rule: empty tensors and separate storages of one memory differ)
    "is_grad_enabled() is not True or any_autocast() or default_dtype() is not f32",
    "torch._C._is_alias_of(a, b)",
]

for stmt in STATEMENTS:
    n = 200_000
    best = min(timeit.repeat(stmt, globals=globals(), number=n, repeat=7))
    print(f"{best / n * 1e9:8.1f} ns  {stmt}")
