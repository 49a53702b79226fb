"""Session 23: the dispatcher's index by the shape at one argument position (cache_hit.calls_by_shape; session 22's
index looked at the first argument only), on and off in one process (this CPU or the H200's host; not in CI).

Two fast callables per case and number of entries, made and warmed up alike; on the second ("scan") the index is
then switched off (its state's ``shape_index`` set to None, which the dispatcher reads as "try every entry"; the
runs logged in session 23 were made at 89f4208, where the state held the index as three attributes and the script
set ``shape_position`` to None instead).
Both are timed on the oldest entry (N - 1 newer entries: the index skips their guards, the scan runs and fails
each) and on the newest (the index's own cost: reading the argument, the key lookup), with eager on the oldest
entry's arguments. Cases: cache_entries.py's, the shape that changes passed first (two_inputs, linear_batches: the
session 22 index covered these) and elsewhere (two_inputs_kw, matmul_second, linear_kw: session 22 scanned these,
as "scan" does). Every fast call is checked against upstream first (bitwise outputs, hit and miss counts, served by
a guard). Medians over repeats, µs per call.

    .venv/bin/python benchmarks_results/s23_scripts/position_index_ab.py [--entries 2,16,64] [--device cpu]
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
    parser.add_argument("--entries", default="2,16,64")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per repeat and system")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {args.device}, {args.repeats} repeats, medians (µs per call)")
    print(f"{'case':<16} {'N':>3} {'pos':>5} {'eager':>8} {'index old':>10} {'scan old':>10} {'index new':>10} "
          f"{'scan new':>10}  out")
    failed = False
    for n in map(int, args.entries.split(",")):
        for name, fn, calls, grad in cache_entries.hit_cases(args.device, n):
            upstream = thunder.jit(fn, fastpath=False)
            indexed = thunder.jit(fn, fastpath=True)
            scan = thunder.jit(fn, fastpath=True)
            oldest, newest = calls[0], calls[-1]
            with torch.set_grad_enabled(grad):
                for _ in range(2):
                    for a, kw in calls:
                        for f in (upstream, indexed, scan):
                            f(*a, **kw)
                index = small_graph.fast_state(indexed).shape_index
                position = index and index[0]
                small_graph.fast_state(scan).shape_index = None
                ok = n == 1 or position is not None
                for a, kw in (oldest, newest):
                    expected = upstream(*a, **kw)
                    for f in (indexed, scan):
                        ok &= small_graph.bitwise_equal(expected, f(*a, **kw)) and cache_entries.served_by_guard(f)
                        ok &= cache_entries.counts(f) == cache_entries.counts(upstream)
                timed = {
                    "eager": functools.partial(fn, *oldest[0], **oldest[1]),
                    "index old": functools.partial(indexed, *oldest[0], **oldest[1]),
                    "scan old": functools.partial(scan, *oldest[0], **oldest[1]),
                    "index new": functools.partial(indexed, *newest[0], **newest[1]),
                    "scan new": functools.partial(scan, *newest[0], **newest[1]),
                }
                misses = [thunder.cache_misses(f) for f in (indexed, scan)]
                samples = small_graph.time_by_budget(timed, args.repeats, args.budget)
                ok &= small_graph.fast_state(scan).shape_index is None  # no entry came or went while timed
                ok &= misses == [thunder.cache_misses(f) for f in (indexed, scan)]  # every timed call a hit
            failed |= not ok
            med = {k: statistics.median(v) for k, v in samples.items()}
            print(f"{name:<16} {n:>3} {str(position):>5} "
                  + " ".join(f"{med[k]:>{max(8, len(k))}.2f}" for k in timed) + ("  =" if ok else "  !"))
    print("\npos: the index's argument position; out: '=' both fast callables bitwise equal to upstream with its hit "
          "and miss counts, served by a guard")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
