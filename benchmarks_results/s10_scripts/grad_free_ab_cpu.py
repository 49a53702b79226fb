"""A/B in one process: the 8x8 two-input function under grad mode, its hit with the grad switch (the code before
session 10: `_grad_free_on_layout` forced to False while the callable's entry is guarded) and without it (the guard's
layout, outputs new), with eager and upstream Thunder interleaved. Medians and minima of R repeats of N calls.

    python benchmarks_results/s10_scripts/grad_free_ab_cpu.py [R] [N]
"""

import sys
import time
from unittest import mock

import torch

import thunder
import thunder.fastpath
import thunder.fastpath.cache_hit as cache_hit


def two_inputs(a, b):
    return a * b + a


a, b = torch.randn(8, 8), torch.randn(8, 8)
with_switch = thunder.jit(two_inputs)
with mock.patch.object(cache_hit, "_grad_free_on_layout", lambda *_: False):
    with_switch(a, b)
without_switch = thunder.jit(two_inputs)
without_switch(a, b)
upstream = thunder.jit(two_inputs, fastpath=False)
upstream(a, b)
assert not with_switch._lc_fastpath_state.hits[0].grad_free_on_layout
assert without_switch._lc_fastpath_state.hits[0].grad_free_on_layout
assert torch.equal(with_switch(a, b), upstream(a, b)) and torch.equal(without_switch(a, b), upstream(a, b))
systems = {
    "eager": lambda: two_inputs(a, b),
    "upstream thunder.jit": lambda: upstream(a, b),
    "fast, grad switch": lambda: with_switch(a, b),
    "fast, on the guard's layout": lambda: without_switch(a, b),
}
R = int(sys.argv[1]) if len(sys.argv) > 1 else 15
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
times = {k: [] for k in systems}
for _ in range(R):
    for name, call in systems.items():
        start = time.perf_counter()
        for _ in range(N):
            call()
        times[name].append((time.perf_counter() - start) / N * 1e6)
hits = thunder.cache_hits(without_switch), thunder.cache_hits(with_switch)
print(f"{R} x {N} calls, µs per call; cache hits of the two fast callables: {hits}")
for name, ts in times.items():
    ts.sort()
    print(f"{name:30s} median {ts[len(ts) // 2]:7.3f}   lower quartile {ts[len(ts) // 4]:7.3f}   min {ts[0]:7.3f}")
