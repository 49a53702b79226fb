"""thunder.jit(model.forward) against thunder.jit(model), upstream and eager, in one process (session 7).
Run from the repository root: python benchmarks_results/s7_scripts/model_forward_cpu.py"""
import timeit

import torch

import thunder
import thunder.fastpath  # noqa: F401

m = torch.nn.Linear(8, 8)
x = torch.randn(8)
res = {}
with torch.no_grad():
    systems = {
        "eager": m,
        "upstream jit(m.forward)": thunder.jit(m.forward, fastpath=False),
        "fast jit(m.forward)": thunder.jit(m.forward),
        "fast jit(m)": thunder.jit(m),
    }
    for f in systems.values():
        for _ in range(3):
            f(x)
    for _ in range(5):  # interleaved repeats
        for k, f in systems.items():
            res.setdefault(k, []).append(timeit.timeit(lambda: f(x), number=2000) / 2000 * 1e6)
for k, v in res.items():
    print(f"{k:28s} median {sorted(v)[2]:8.2f} us  (of 5 x 2,000 calls, no_grad, Linear(8, 8), CPU)")
