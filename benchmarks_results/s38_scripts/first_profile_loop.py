"""Session 38: in a process's first cProfile'd loop, does a torch op cost more than in later ones?

    .venv/bin/python benchmarks_results/s38_scripts/first_profile_loop.py

Three profiled loops of 20,000 ``torch.mul`` calls on an 8-element CPU tensor, then the same loop unprofiled; prints
the op's cumulative time in each (seconds for 20,000 calls). No Thunder involved.
"""

import cProfile
import pstats
import time

import torch

x = torch.randn(8)
for k in range(3):
    profiler = cProfile.Profile()
    profiler.runcall(lambda: [torch.mul(x, x) for _ in range(20000)])
    stats = pstats.Stats(profiler).stats
    print(f"profiled loop {k + 1}:", [round(v[3], 4) for f, v in stats.items() if "torch.mul" in f[2]])
start = time.perf_counter()
[torch.mul(x, x) for _ in range(20000)]
print("unprofiled loop:", round(time.perf_counter() - start, 4))
