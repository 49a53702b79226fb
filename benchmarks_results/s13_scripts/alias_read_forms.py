"""Session 13, this CPU: the per-tensor cost of exact forms of the storage read behind the guard's alias check, 16 tensors
in one set expression as guard.py generates it (A: what it generates; B: the storage's data pointer computed from the
tensor's, which is exact only for non-empty tensors: an empty one's data_ptr() is 0; C and E: parts of B, for scale).
µs per tensor, median and minimum of 15 runs."""

import statistics
import timeit

import torch

ts = [torch.randn(8) for _ in range(16)]
names = [f"t{i}" for i in range(16)]
g = {n: t for n, t in zip(names, ts)}
A = "len({" + ", ".join(f"{n}.untyped_storage().data_ptr()" for n in names) + "})"
B = "len({" + ", ".join(f"{n}.data_ptr() - {n}.storage_offset() * 4" for n in names) + "})"
C = "len({" + ", ".join(f"{n}.data_ptr()" for n in names) + "})"
E = "len({" + ", ".join(f"{n}.storage_offset()" for n in names) + "})"
codes = {k: compile(v, k, "eval") for k, v in dict(A=A, B=B, C=C, E=E).items()}
res = {k: [] for k in codes}
for _ in range(15):
    for k, c in codes.items():
        res[k].append(timeit.timeit(lambda: eval(c, g), number=20000) / 20000 * 1e6 / 16)
for k in res:
    print(k, f"{statistics.median(res[k]):.3f} {min(res[k]):.3f} us/tensor")
