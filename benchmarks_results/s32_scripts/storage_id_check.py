"""Is torch._C._storage_id a stand-in for the alias check's `untyped_storage().data_ptr()`? (session 32, this CPU)

It returns the StorageImpl's identity, as `torch._C._storage_address` does (session 27,
`s27_scripts/storage_address_alternative.py`): two empty tensors, or `torch.from_numpy` of one array twice, share
upstream's data pointer but not the StorageImpl. Prints both readings for such pairs, then each read's cost.
"""

import timeit

import numpy as np
import torch

pairs = {
    "a view of one tensor": (lambda a: (a, a[1:]))(torch.randn(4, 4)),
    "two empty tensors": (torch.empty(0), torch.empty(0)),
    "from_numpy of one array twice": (lambda n: (torch.from_numpy(n), torch.from_numpy(n)))(np.zeros(3)),
}
for name, (x, y) in pairs.items():
    same_ptr = x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    same_id = torch._C._storage_id(x) == torch._C._storage_id(y)
    print(f"{name}: same data_ptr {same_ptr}, same _storage_id {same_id}")
a = torch.randn(4, 4)
for stmt in ["a.untyped_storage().data_ptr()", "storage_id(a)"]:
    t = min(timeit.repeat(stmt, globals={"a": a, "storage_id": torch._C._storage_id}, number=200_000, repeat=7))
    print(f"{stmt}: {t / 200_000 * 1e6:.3f} µs (minimum of 7 x 200,000)")
