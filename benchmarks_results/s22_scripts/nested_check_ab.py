"""Session 22: what the guard's nested-tensor line costs (``if a.is_nested or ...: return __MISS``, in front of
TensorGuards, which aborts the process on a strided nested tensor; parameters found in a ThunderModule's
_overrides_parameters are not in it). The guard of each case's entry, alone, with that
line and without it (the same guard's lines less that one, compiled alike), interleaved as hit_breakdown.py times
its pieces (minimum µs per call over repeats). Growth per extra tensor input from inputs_16 to inputs_64 and per extra
parameter from params_32 to params_128, as BENCHMARKS.md's guard rows.

    .venv/bin/python benchmarks_results/s22_scripts/nested_check_ab.py [--device cpu|cuda] [--number 20000]
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "thunder", "benchmarks"))
import hit_breakdown  # noqa: E402

from thunder.fastpath.guard import Guard  # noqa: E402

CASES = "two_8x8,params_1,inputs_16,inputs_64,params_32,params_128"


def without_nested_line(guard: Guard) -> Guard:
    # the line in front of TensorGuards (a parameter read outside the override dict is checked where it is read)
    checks = [line for line in guard.checks if not (line.startswith("if ") and ".is_nested" in line)]
    assert len(checks) == len(guard.checks) - 1
    return Guard(checks, guard.namespace, guard.input_list, guard.pro_to_epi, guard.grad_enabled, guard.no_grad_inputs)


def pieces_of(case):
    jitted, fast, hit = hit_breakdown.jit_and_hit(case)
    args = case.args
    with_line, without = hit.guard.check, without_nested_line(hit.guard).check
    assert with_line(args, {})[0] == without(args, {})[0]  # the same computation inputs, object for object
    pieces_of.keep.append(jitted)  # a module's guard holds its ThunderModule weakly
    return {"guard": lambda: with_line(args, {}), "guard without the nested line": lambda: without(args, {})}


pieces_of.keep = []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    minima = {}
    for case, pieces, samples in hit_breakdown.timed_cases(args.device, CASES, pieces_of, args.number, args.repeats):
        for piece, times in samples.items():
            minima[case.name, piece] = min(times)
            print(f"{case.name:<12} {piece:<32} {min(times):8.3f} us")
    for piece in ("guard", "guard without the nested line"):
        inputs = (minima["inputs_64", piece] - minima["inputs_16", piece]) / 48
        params = (minima["params_128", piece] - minima["params_32", piece]) / 96
        print(f"{piece:<32} per extra tensor input {inputs:.3f} us, per extra parameter {params:.3f} us")


if __name__ == "__main__":
    main()
