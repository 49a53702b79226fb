"""Session 21 review: what small_graph.py's warm-up in grad mode did to its inference rows (this CPU; not in CI).

Before ea01fec small_graph.py warmed each system up in grad mode, also for the cases that it times under no_grad
(RMSNorm, params_*): that made a second cache entry (grad mode on), newer than the case's own, so every timed call
first failed it (upstream: a prologue that raises; the fast path: a guard). This times, in one process and under
no_grad, upstream and the fast path with only the case's entry ("one entry") and with that extra entry ("two
entries", as before the fix), with eager and the computation alone. Medians over repeats, µs per call.

    .venv/bin/python benchmarks_results/s21_scripts/inference_warmup_ab.py [--cases params_1,rmsnorm_1x2880]
"""

import argparse
import functools
import os
import statistics
import sys

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "thunder", "benchmarks"))
import small_graph  # noqa: E402

import thunder  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="rmsnorm_1x2880,params_1,params_32,params_128")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per repeat and system")
    args = parser.parse_args()
    torch.manual_seed(0)
    cases = {c.name: c for c in small_graph.make_cases("cpu")}
    print(f"torch {torch.__version__}, cpu, {args.repeats} repeats, medians (µs per call, under no_grad)")
    for name in args.cases.split(","):
        case = cases[name]
        assert case.inference
        systems = {"eager": case.fn}
        for entries in ("one entry", "two entries"):
            for label, fastpath in (("thunder", False), ("fast", True)):
                f = thunder.jit(case.fn, fastpath=fastpath)
                with torch.no_grad():
                    f(*case.args)
                if entries == "two entries":
                    f(*case.args)  # grad mode on, as the old warm-up: a second, newer entry
                assert thunder.cache_misses(f) == (1 if entries == "one entry" else 2)
                systems[f"{label}, {entries}"] = f
        with torch.no_grad():
            for f in systems.values():
                f(*case.args)
            systems["computation"] = small_graph.computation_only(systems["fast, one entry"])(*case.args)
            reference = systems["thunder, one entry"](*case.args)
            for label in ("fast, one entry", "thunder, two entries", "fast, two entries"):
                assert small_graph.bitwise_equal(systems[label](*case.args), reference), label
            calls = {label: functools.partial(f, *case.args) for label, f in systems.items()}
            samples = small_graph.time_by_budget(calls, args.repeats, args.budget)
        medians = {label: statistics.median(v) for label, v in samples.items()}
        print(f"{name}: " + ", ".join(f"{label} {m:.2f}" for label, m in medians.items()))
        for entries in ("one entry", "two entries"):
            fast = medians[f"fast, {entries}"]
            print(f"  {entries}: fast/computation {fast / medians['computation']:.2f}, fast/eager "
                  f"{fast / medians['eager']:.2f}, fast/thunder {fast / medians[f'thunder, {entries}']:.3f}")


if __name__ == "__main__":
    main()
