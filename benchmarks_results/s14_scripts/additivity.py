"""Session 14 experiment: does a cache hit cost the sum of its parts? On one case, interleaved repeat by repeat:
the work the hit runs (the region's executor for a single nvFuser region, else the computation with prepared
inputs), the guard alone and followed by the work in one lambda, a pure-Python loop of a few dozen bytecodes (no
C calls) alone and followed by the work, the entry's hit function and the whole call. Where "guard then work" costs more
than guard + work, the difference is an interaction (caches, the GPU queue), not Python that could be removed.
Medians and minima of `--repeats` timings of `--number` calls each, µs per call."""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
from hit_breakdown import jit_and_hit, timed_cases  # noqa: E402


def spin(n=12):
    # Python work of no consequence: a few dozen bytecodes, like a guard's
    total = 0
    for i in range(n):
        total += i
    return total


# Everything warm_hit jitted, kept for the script's lifetime: a module's guard holds its jitted module weakly, so a
# caller that dropped it would time misses.
_jitted = []


def warm_hit(case):
    """The case jitted with the fast path and called until it hits: (jitted, its first guarded entry, the work that
    entry's hit runs: the region's executor for a single nvFuser region, else the computation, on prepared inputs)."""
    jitted, _, hit = jit_and_hit(case)
    _jitted.append(jitted)
    inputs = hit.guard.check(case.args, {})[0]
    if hit.region_call is not None:
        region_args = tuple(inputs[i] for i in hit.region_call.arg_positions)
        execute = hit.region_call.region.prepared[1]
        return jitted, hit, lambda: execute(region_args)
    comp = hit.computation
    return jitted, hit, lambda: comp(*inputs)


def pieces_of(case):
    jitted, hit, work = warm_hit(case)
    args, check, call = case.args, hit.guard.check, hit.call
    label = "work: region's executor" if hit.region_call is not None else "work: computation"
    return {
        label: work,
        "guard": lambda: check(args, {}),
        "spin": spin,
        "guard then work": lambda: (check(args, {}), work()),
        "spin then work": lambda: (spin(), work()),
        "hit function": lambda: call(args, {}),
        "whole call": lambda: jitted(*args),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="two_8x8")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=21)
    opts = parser.parse_args()
    for case, pieces, times in timed_cases(opts.device, opts.cases, pieces_of, opts.number, opts.repeats):
        med = {p: statistics.median(v) for p, v in times.items()}
        low = {p: min(v) for p, v in times.items()}
        print(f"== {case.name} on {opts.device} ({'no_grad' if case.inference else 'grad enabled'}), "
              f"{opts.repeats} x {opts.number} calls")
        print(f"{'piece':<30} {'median':>8} {'min':>8}")
        for piece in pieces:
            print(f"{piece:<30} {med[piece]:8.3f} {low[piece]:8.3f}")
        work = next(p for p in pieces if p.startswith("work"))
        for a in ("guard", "spin"):
            extra = med[f"{a} then work"] - med[a] - med[work]
            print(f"'{a} then work' - {a} - work (medians): {extra:+.3f} us")


if __name__ == "__main__":
    main()
