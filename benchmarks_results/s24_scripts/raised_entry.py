"""Hits after a call whose computation raised (06ade43), timed side by side in one process.

A function is called with one shape (entry A), then once with another shape and an index out of range: that call
makes entry B, whose computation raises (as an out-of-memory error would). Then A's call is timed on: eager,
upstream, the fast path, and a second fast callable made to forget B's guard, which is the state that the code
before 06ade43 left: B had no guard, so no guard could be tried before it and every call took upstream's path
until a call of B succeeded.

Usage: python raised_entry.py [--device cpu] [--repeats 15]
"""

import argparse
import functools
import os
import statistics
import sys
import warnings

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "thunder", "benchmarks"))
import small_graph  # noqa: E402  (timing, output comparison, fast-path state; it imports thunder.fastpath)

import thunder  # noqa: E402


def f(x, index):
    return torch.index_select(x, 0, index) * 2 + 1


def forget_newest_guard(fast):
    """What the code before 06ade43 left after B's call: no guard for B, so no function to try at all."""
    state = small_graph.fast_state(fast)
    newest = fast._lc_cs.interpreter_cache[-1]
    state.by_entry.pop(id(newest), None)
    state.hits, state.calls, state.shape_index = (), (), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--budget", type=float, default=0.02, help="seconds per sample")
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    d = opts.device
    a_call = (torch.randn(8, 8, device=d), torch.tensor([1, 2], device=d))
    b_call = (torch.randn(9, 8, device=d), torch.tensor([20], device=d))
    upstream = thunder.jit(f, fastpath=False)
    fast = thunder.jit(f)
    fast_before = thunder.jit(f)
    reference = thunder.jit(f, fastpath=False)  # checked against fast_before, as upstream against fast
    for jitted in (upstream, fast, fast_before, reference):
        jitted(*a_call)
        jitted(*a_call)
        try:
            jitted(*b_call)
            raise SystemExit("B's call did not raise")
        except IndexError:
            pass
    forget_newest_guard(fast_before)
    checks = {}
    for name, jitted, up in (("fast", fast, upstream), ("fast, B without guard", fast_before, reference)):
        same = small_graph.bitwise_equal(up(*a_call), jitted(*a_call))
        same = same and (thunder.cache_hits(up), thunder.cache_misses(up)) == (
            thunder.cache_hits(jitted), thunder.cache_misses(jitted))
        served = small_graph.fast_state(jitted).published is not None
        checks[name] = ("=" if same else "!") + (" served by a guard" if served else " upstream's path")
    systems = {"eager": f, "thunder": upstream, "fast": fast, "fast, B without guard": fast_before}
    calls = {name: functools.partial(fn, *a_call) for name, fn in systems.items()}
    samples = small_graph.time_by_budget(calls, opts.repeats, opts.budget)
    print(f"torch {torch.__version__} | device {d} | repeats {opts.repeats} | hits of entry A after B's call raised")
    print(f"{'system':<24}{'median us':>10}{'min':>10}  check")
    for name, values in samples.items():
        print(f"{name:<24}{statistics.median(values):>10.2f}{min(values):>10.2f}  {checks.get(name, '')}")


if __name__ == "__main__":
    main()
