"""Session 14 experiment, after additivity.py: which of the guard's parts costs more in front of the region's executor
than alone. For a single-region case (#1657): the executor call alone; each part of the hit's guard alone and followed
by the executor (the tensor check that notes the layout, dynamo's GlobalStateGuard, the default-device line, the
whole guard); and a pure-Python loop for comparison. Interleaved; medians and minima, µs per call."""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from additivity import spin, warm_hit  # noqa: E402
from hit_breakdown import timed_cases  # noqa: E402


def pieces_of(case):
    _, hit, execute_region = warm_hit(case)
    assert hit.region_call is not None, "a case whose computation is one nvFuser region"
    g = hit.call.__globals__  # the hit function's namespace: the guard's objects
    args, check = case.args, hit.guard.check
    inputs = check(args, {})[0]
    tensors = [inputs[i] for i in hit.region_call.tensor_positions]
    layout, state = g["__observed_layout"], g["__global_state"]
    stack_len, device_context = g["__len_torch_function_stack"], g["__device_context"]

    def device_line():
        return stack_len() or device_context.__dict__.get("device_context") is not None

    parts = {
        "tensor check (layout)": lambda: layout.check(*tensors),
        "GlobalStateGuard": state.check,
        "default-device line": device_line,
        "whole guard": lambda: check(args, {}),
        "spin": spin,
    }
    pieces = {"executor": execute_region}
    for name, part in parts.items():
        pieces[name] = part
        pieces[f"{name} then executor"] = lambda part=part: (part(), execute_region())
    return pieces


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="issue1657")
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=41)
    opts = parser.parse_args()
    for case, pieces, times in timed_cases("cuda", opts.cases, pieces_of, opts.number, opts.repeats):
        med = {p: statistics.median(v) for p, v in times.items()}
        low = {p: min(v) for p, v in times.items()}
        print(f"== {case.name} on cuda, {opts.repeats} x {opts.number} calls")
        print(f"{'piece':<36} {'median':>8} {'min':>8} {'extra (median)':>15}")
        for piece in pieces:
            extra = ""
            if piece.endswith(" then executor"):
                part = piece[: -len(" then executor")]
                extra = f"{med[piece] - med[part] - med['executor']:+15.3f}"
            print(f"{piece:<36} {med[piece]:8.3f} {low[piece]:8.3f} {extra}")


if __name__ == "__main__":
    main()
