"""Session 26: the alias check's storage read per tensor against the exact alternative computed from the tensor's own
data pointer (data_ptr() - storage_offset() * itemsize; equal to the storage's pointer for tensors with elements).
Minimum of 7 timeit runs of 200,000 each, µs per statement, on one 8x8 float32 CPU tensor (and a pair).

    .venv/bin/python benchmarks_results/s26_scripts/storage_pointer_alternatives.py
"""

import timeit

import torch

a, b = torch.randn(8, 8), torch.randn(8, 8)
statements = [
    "pass",
    "a.untyped_storage().data_ptr()",
    "a.data_ptr()",
    "a.storage_offset()",
    "a.data_ptr() - a.storage_offset() * 4",
    "a.is_nested",
    "a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()",
    "a.data_ptr() - a.storage_offset() * 4 == b.data_ptr() - b.storage_offset() * 4",
]
for stmt in statements:
    best = min(timeit.timeit(stmt, globals={"a": a, "b": b}, number=200_000) for _ in range(7)) / 200_000 * 1e6
    print(f"{stmt:<80} {best:.4f} us")
