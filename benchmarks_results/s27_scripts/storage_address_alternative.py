"""Session 27: is torch._C._storage_address (the StorageImpl's address, one C call) an exact and cheaper stand-in for
the alias check's untyped_storage().data_ptr()? Prints where the two disagree and each one's cost per tensor.
Usage: python storage_address_alternative.py"""
import timeit

import numpy as np
import torch

a = torch.randn(8, 8)
empty_1, empty_2 = torch.empty(0), torch.empty(0)
array = np.zeros(4, dtype=np.float32)
pairs = {
    "two views of one storage": (a, a[1:]),
    "two empty tensors": (empty_1, empty_2),
    "torch.from_numpy of one array twice": (torch.from_numpy(array), torch.from_numpy(array)),
}
for name, (x, y) in pairs.items():
    upstream = x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    address = torch._C._storage_address(x) == torch._C._storage_address(y)
    print(f"{name}: same data_ptr {upstream}, same _storage_address {address}")
storage_address = torch._C._storage_address
for stmt in ("a.untyped_storage().data_ptr()", "storage_address(a)"):
    n = 200_000
    best = min(timeit.repeat(stmt, globals=globals(), number=n, repeat=7))
    print(f"{stmt}: {best / n * 1e6:.4f} us per tensor (minimum of 7 x {n})")
