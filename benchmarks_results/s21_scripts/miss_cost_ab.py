"""Session 21: the cost of a guard that misses, before and after the plain-loop tensor_matches (this CPU; not in CI).

Two fast callables of one function, each called with N shapes in turn (N cache entries). The guards of the
first are built with session 20's check_tensors_slowly (a generator per tensor and per dimension, copied below),
those of the second with the current one. Interleaved repeat by repeat: a call of the oldest entry (N - 1 guards
miss first) and of the newest, for both; and one guard's miss alone. Medians over the repeats, µs per call.

    .venv/bin/python benchmarks_results/s21_scripts/miss_cost_ab.py [--entries 16] [--repeats 15]
"""

import argparse
import statistics
import timeit

import torch

import thunder
import thunder.fastpath.guard as guard_module
from thunder.fastpath.guard import DECLINE, MISS


def session20_tensor_matches(t, shape, device, dtype, requires_grad):
    return (
        isinstance(t, torch.Tensor)
        and len(t.shape) == len(shape)
        and all(ref is None or d == ref for d, ref in zip(t.shape, shape))
        and str(t.device) == device
        and t.dtype == dtype
        and t.requires_grad == requires_grad
    )


def session20_check_tensors_slowly(tensors, specs, types):
    if not all(session20_tensor_matches(t, *spec) for t, spec in zip(tensors, specs)):
        return MISS
    if any(type(t) is not typ for t, typ in zip(tensors, types)):
        return DECLINE
    return True


def two_inputs(a, b):
    return a * b + a


def primed(argsets, slow_check):
    current = guard_module.check_tensors_slowly
    guard_module.check_tensors_slowly = slow_check  # read when each guard is built
    try:
        f = thunder.jit(two_inputs, fastpath=True)
        for _ in range(2):
            for args in argsets:
                f(*args)
    finally:
        guard_module.check_tensors_slowly = current
    assert len(f._lc_fastpath_state.hits) == len(argsets)
    return f


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    torch.manual_seed(0)
    argsets = [(torch.randn(8, 8 + i), torch.randn(8, 8 + i)) for i in range(args.entries)]
    oldest, newest = argsets[0], argsets[-1]
    before = primed(argsets, session20_check_tensors_slowly)
    after = primed(argsets, guard_module.check_tensors_slowly)
    assert torch.equal(before(*oldest), after(*oldest))
    statements = {}
    for label, f in (("session 20", before), ("session 21", after)):
        newest_hit = f._lc_fastpath_state.hits[0].call
        statements[f"{label}: oldest entry"] = lambda f=f: f(*oldest)
        statements[f"{label}: newest entry"] = lambda f=f: f(*newest)
        statements[f"{label}: one guard's miss"] = lambda c=newest_hit: c(oldest, {})
    number = 2000
    samples = {k: [] for k in statements}
    for _ in range(args.repeats):
        for k, s in statements.items():
            samples[k].append(min(timeit.repeat(s, number=number, repeat=1)) / number * 1e6)
    print(f"torch {torch.__version__}, {args.entries} entries, {args.repeats} repeats of {number} calls, medians (µs)")
    medians = {k: statistics.median(v) for k, v in samples.items()}
    for k, v in medians.items():
        print(f"  {k:<32} {v:8.2f}")
    for label in ("session 20", "session 21"):
        per_entry = (medians[f"{label}: oldest entry"] - medians[f"{label}: newest entry"]) / (args.entries - 1)
        print(f"  {label}: per newer entry {per_entry:.2f}")


if __name__ == "__main__":
    main()
