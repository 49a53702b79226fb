"""Reading a tensor's storage identity on this CPU, per tensor: upstream's storage pointer
(`untyped_storage().data_ptr()`, what the guard's alias check compares), `torch._C._storage_address` (the
StorageImpl's address, not the same value) and `data_ptr()` (not the storage's pointer for views with an offset).
Minima of 7 x 200,000 calls, one process.

    .venv/bin/python benchmarks_results/s9_scripts/storage_address_cpu.py
"""

import timeit

import torch

a = torch.randn(8)
storage_address = torch._C._storage_address
print("same value as upstream's pointer:", storage_address(a) == a.untyped_storage().data_ptr())
for name, f in [
    ("untyped_storage().data_ptr()", lambda: a.untyped_storage().data_ptr()),
    ("torch._C._storage_address", lambda: storage_address(a)),
    ("data_ptr()", lambda: a.data_ptr()),
]:
    print(f"{name:30s} {min(timeit.repeat(f, number=200000, repeat=7)) / 200000 * 1e9:6.0f} ns")
