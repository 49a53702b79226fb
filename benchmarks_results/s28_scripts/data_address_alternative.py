"""Session 28: torch._C._data_address(t) (the storage's data pointer, read without a Python storage object) in place
of the alias check's t.untyped_storage().data_ptr(): does it give the same value, and is it cheaper? (this CPU)"""
import timeit

import numpy as np
import torch

da = torch._C._data_address
ours = lambda t: t.untyped_storage().data_ptr()  # noqa: E731


def same(name, *tensors):
    print(f"{name:28} _data_address {[da(t) for t in tensors] == [ours(t) for t in tensors]}")


t = torch.arange(10.0)
same("view with an offset", t[3:])
same("empty tensors", torch.empty(0), torch.empty(0))
same("empty view", t[5:5])
a = np.arange(4.0)
same("from_numpy twice", torch.from_numpy(a), torch.from_numpy(a))
same("meta", torch.ones(3, device="meta"))
c = torch._lazy_clone(t)
print(f"{'copy-on-write clone':28} before data_ptr: shares the pointer by _data_address {da(c) == da(t)}; "
      f"untyped_storage().data_ptr() materializes it: equal {ours(c) == ours(t)}")
ts = [torch.randn(8) for _ in range(16)]
for name, f in (("untyped_storage().data_ptr()", ours), ("_data_address", da)):
    best = min(timeit.repeat(lambda: len({f(q) for q in ts}), number=100000, repeat=7))
    print(f"{name:28} {best / 100000 / 16 * 1e6:.3f} us per tensor (a set of 16)")
