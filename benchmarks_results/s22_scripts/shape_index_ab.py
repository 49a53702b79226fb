"""Session 22: the dispatcher's index by the shape of the first argument (cache_hit.calls_by_first_shape), on and off
in one process (this CPU or the H200's host; not in CI).

Two fast callables per case and number of entries, made and warmed up alike; on the second ("scan") the index is
then switched off (its state's ``calls_by_shape`` set to None, which the dispatcher reads as "try every entry",
as it did before the index). Both are timed on the oldest entry (N - 1 newer entries: the index skips their guards,
the scan runs and fails each) and on the newest (the index's own cost: the key lookup), with eager on the oldest
entry's arguments. Cases: cache_entries.py's (a function of two tensors, 8 x (8 + i); a Linear in inference with
batch 1 + i). Every fast call is checked against upstream first (bitwise outputs, hit and miss counts, served by a
guard). Medians over repeats, µs per call.

    .venv/bin/python benchmarks_results/s22_scripts/shape_index_ab.py [--entries 1,2,4,16,64] [--device cpu]

Runs at session 22's commits (a650869 to 48477d9) only: from 89f4208 on the state holds the index differently
(``shape_index``) and this script's ``calls_by_shape`` no longer exists there. At later commits,
``benchmarks_results/s23_scripts/position_index_ab.py`` times the same two cases, and three more, the same way.
"""

import argparse
import functools
import os
import statistics
import sys

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "thunder", "benchmarks"))
import cache_entries  # noqa: E402
import small_graph  # noqa: E402

import thunder  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", default="1,2,4,16,64")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per repeat and system")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {args.device}, {args.repeats} repeats, medians (µs per call)")
    print(f"{'case':<16} {'N':>3} {'eager':>8} {'index old':>10} {'scan old':>10} {'index new':>10} {'scan new':>10}  out")
    failed = False
    for n in map(int, args.entries.split(",")):
        for name, fn, argsets, grad in cache_entries.make_cases(args.device, n):
            upstream = thunder.jit(fn, fastpath=False)
            indexed = thunder.jit(fn, fastpath=True)
            scan = thunder.jit(fn, fastpath=True)
            oldest, newest = argsets[0], argsets[-1]
            with torch.set_grad_enabled(grad):
                for _ in range(2):
                    for a in argsets:
                        for f in (upstream, indexed, scan):
                            f(*a)
                if n > 1:
                    assert small_graph.fast_state(indexed).calls_by_shape is not None
                small_graph.fast_state(scan).calls_by_shape = None
                ok = True
                for a in (oldest, newest):
                    expected = upstream(*a)
                    for f in (indexed, scan):
                        ok &= small_graph.bitwise_equal(expected, f(*a)) and cache_entries.served_by_guard(f)
                        ok &= cache_entries.counts(f) == cache_entries.counts(upstream)
                calls = {
                    "eager": functools.partial(fn, *oldest),
                    "index old": functools.partial(indexed, *oldest),
                    "scan old": functools.partial(scan, *oldest),
                    "index new": functools.partial(indexed, *newest),
                    "scan new": functools.partial(scan, *newest),
                }
                misses = [thunder.cache_misses(f) for f in (indexed, scan)]
                samples = small_graph.time_by_budget(calls, args.repeats, args.budget)
                ok &= small_graph.fast_state(scan).calls_by_shape is None  # no entry came or went while timed
                ok &= misses == [thunder.cache_misses(f) for f in (indexed, scan)]  # every timed call a hit
            failed |= not ok
            med = {k: statistics.median(v) for k, v in samples.items()}
            print(f"{name:<16} {n:>3} " + " ".join(f"{med[k]:>{max(8, len(k))}.2f}" for k in calls) + ("  =" if ok else "  !"))
    print("\nout: '=' both fast callables bitwise equal to upstream with its hit and miss counts, served by a guard")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
