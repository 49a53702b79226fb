"""What the guard's storage-alias check costs per tensor on this CPU, against the alternatives looked at in session 11.

Prints the minimum over repeats, in ns per evaluation, of each expression on two 8x8 tensors, interleaved repeat by
repeat. Only `untyped_storage().data_ptr()` gives upstream's grouping (by data pointer) for every tensor; the others
are here for their cost (storage objects: not exact, see test_separate_storages_of_one_memory_count_as_aliased_like_upstream;
data_ptr minus the offset: exact, more calls). Usage: python alias_check_costs.py [repeats] [number]
"""

import sys
import timeit

import torch
from torch._C._dynamo.guards import GlobalStateGuard, TensorGuards

repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
number = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
a, b = torch.randn(8, 8), torch.randn(8, 8)
namespace = {
    "a": a,
    "b": b,
    "storage_address": torch._C._storage_address,
    "tensor_guards": TensorGuards(a, b, dynamic_dims_sizes=[[8, 8], [8, 8]], dynamic_dims_strides=[[None] * 2] * 2),
    "global_state": GlobalStateGuard(),
}
expressions = [
    "pass",
    "a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()",  # the guard's check (upstream's grouping)
    "storage_address(a) == storage_address(b)",  # storage objects: not exact
    "a.data_ptr() - 4 * a.storage_offset() == b.data_ptr() - 4 * b.storage_offset()",
    "tensor_guards.check(a, b)",  # for scale: the guard's tensor check
    "global_state.check()",
]
timers = [timeit.Timer(e, globals=namespace) for e in expressions]
best = [float("inf")] * len(expressions)
for _ in range(repeats):
    for i, timer in enumerate(timers):
        best[i] = min(best[i], timer.timeit(number) / number * 1e9)
print(f"torch {torch.__version__}, {repeats} x {number} evaluations, minimum ns per evaluation")
for e, ns in zip(expressions, best):
    print(f"{ns:8.1f}  {e}")
