"""Session 40: what 6a7a1fc's storage check costs a hit that takes the guard's slow tensor check (TensorGuards says
no on every call): one tensor passed twice, and a conjugate view. Prints the minimum µs per call of the fast callable
over repeats; run once with each guard.py (see BENCHMARKS.md, session 40) and compare.

    .venv/bin/python benchmarks_results/s40_scripts/slow_path_cost_ab.py
"""
import pathlib
import sys
import timeit

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "thunder" / "tests"))
from test_overhead import took_fast_path  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402

a = torch.randn(8, 8)
z = torch.randn(8, 8, dtype=torch.complex64)
cases = {
    "same tensor twice": (thunder.jit(lambda x, y: x + y), (a, a)),
    "conjugate view": (thunder.jit(lambda x: x * 2), (z.conj(),)),
    "plain (TensorGuards passes)": (thunder.jit(lambda x, y: x + y), (a, torch.randn(8, 8))),
}
for name, (f, args) in cases.items():
    f(*args)
    took_fast_path.stamp = thunder.compile_stats(f).last_trace_host_start
    f(*args)
    assert took_fast_path(f), name
    best = min(timeit.repeat(lambda: f(*args), number=20000, repeat=7)) / 20000 * 1e6
    print(f"{name:30s} {best:.3f} us")
