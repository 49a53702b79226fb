# Ran in session 27 at or before cbdedff; the GlobalStateGuard parts need that code (later commits dropped it).
"""Session 27: what a hit costs on a torch without dynamo's GlobalStateGuard (guard.py's fallback: grad mode,
autocast and the default dtype checked one by one) against the guard as built on torch 2.11. small_graph.py's cases,
each jitted twice in one process (the second after removing GlobalStateGuard from guard.py), timed interleaved
repeat by repeat; µs per call, medians and minima.

Usage: python global_state_fallback_cost.py [--cases two_8x8,params_1,inputs_1] [--device cpu|cuda]"""
import argparse
import contextlib
import os
import statistics
import sys
import timeit

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
import small_graph  # noqa: E402

import thunder  # noqa: E402
import thunder.fastpath.guard as guard  # noqa: E402


def grad_mode(case):
    return torch.no_grad() if case.inference else contextlib.nullcontext()


def jitted_after_hits(case):
    """The case jitted with the fast path and called until it hits: (jitted, its first guarded entry's guard)."""
    jitted = thunder.jit(case.fn, fastpath=True)
    with grad_mode(case):
        for _ in range(3):
            jitted(*case.args)
    fast = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    hits = fast._lc_fastpath_state.hits
    assert len(hits) == 1, "one guarded entry expected"
    return jitted, hits[0].guard


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="two_8x8,params_1,inputs_1")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    opts = parser.parse_args()
    names = opts.cases.split(",")
    cases = [c for c in small_graph.make_cases(opts.device) if c.name in names]
    saved = guard.GlobalStateGuard
    for case in cases:
        with_guard, guard_with = jitted_after_hits(case)
        guard.GlobalStateGuard = None
        try:
            without_guard, guard_without = jitted_after_hits(case)
        finally:
            guard.GlobalStateGuard = saved
        assert "__global_state" in "".join(guard_with.checks) and "__global_state" not in "".join(guard_without.checks)
        args = case.args
        pieces = {
            "whole call, with GlobalStateGuard": lambda: with_guard(*args),
            "whole call, fallback": lambda: without_guard(*args),
            "guard alone, with GlobalStateGuard": lambda: guard_with.check(args, {}),
            "guard alone, fallback": lambda: guard_without.check(args, {}),
        }
        times = {label: [] for label in pieces}
        with grad_mode(case):
            assert guard_with.check(args, {}) is not guard.MISS and guard_without.check(args, {}) is not guard.MISS
            for _ in range(opts.repeats):
                for label, f in pieces.items():
                    times[label].append(timeit.timeit(f, number=opts.number) / opts.number * 1e6)
        for label, ts in times.items():
            print(f"{case.name:12s} {label:36s} median {statistics.median(ts):7.3f} us   min {min(ts):7.3f} us")


if __name__ == "__main__":
    main()
