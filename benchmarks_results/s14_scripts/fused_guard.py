"""Session 14 experiment, after additivity_parts.py: the guard's torch C++ calls (TensorGuards, GlobalStateGuard, the
torch-function-stack length) cost ~0.2 µs more each in front of nvFuser's executor than alone. Would one C++ call
for all of them (dynamo's RootGuardManager: the argument count, each tensor's type, dispatch keys, dtype, device,
sizes and strides, the global state and an empty torch-function mode stack) cost less in a hit? For a case whose
arguments are all tensors, interleaved: the work alone (the region's executor, or the computation on the CPU); the
hit's guard and a guard function around one RootGuardManager check, each alone and followed by the work; the hit
function. Not a runtime change: the root here covers only what these cases need. Medians and minima, µs per call."""

import argparse
import os
import statistics
import sys

import torch
from torch._C._dynamo.guards import GlobalStateGuard, RootGuardManager
from torch._dynamo.guards import GuardManagerType

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
from additivity import warm_hit  # noqa: E402
from hit_breakdown import timed_cases  # noqa: E402

from thunder.fastpath.guard import MISS  # noqa: E402


def fused_root(args):
    root = RootGuardManager()
    root.add_length_check_guard(len(args), ["len(args)"], None)
    root.add_global_state_guard(GlobalStateGuard(), ["global state"], None)
    root.add_torch_function_mode_stack_guard([], ["torch function mode stack"], None)
    for i, t in enumerate(args):
        item = root.tuple_getitem_manager(i, f"args[{i}]", t, GuardManagerType.GUARD_MANAGER)
        item.add_tensor_match_guard(t, list(t.shape), list(t.stride()), f"args[{i}]", [f"args[{i}] match"], None,
                                    type(t), torch._C._dispatch_keys(t))
    return root


def pieces_of(case):
    _, hit, work = warm_hit(case)
    args, check = case.args, hit.guard.check
    assert all(type(a) is torch.Tensor for a in args)
    root = fused_root(args)
    root_check = root.check

    def fused(args, kwargs):
        # what a generated guard would keep in Python around the fused check
        if kwargs or not root_check(args):
            return MISS
        return (args, ())

    assert fused(args, {}) is not MISS
    assert fused(args[:-1], {}) is MISS and fused(tuple(a.t() for a in args), {}) is MISS
    with torch.set_grad_enabled(not torch.is_grad_enabled()):
        assert fused(args, {}) is MISS
    return {
        "work": work,
        "guard": lambda: check(args, {}),
        "guard then work": lambda: (check(args, {}), work()),
        "fused guard": lambda: fused(args, {}),
        "fused guard then work": lambda: (fused(args, {}), work()),
        "hit function": lambda: hit.call(args, {}),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="two_8x8")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=41)
    opts = parser.parse_args()
    for case, pieces, times in timed_cases(opts.device, opts.cases, pieces_of, opts.number, opts.repeats):
        med = {p: statistics.median(v) for p, v in times.items()}
        low = {p: min(v) for p, v in times.items()}
        print(f"== {case.name} on {opts.device}, {opts.repeats} x {opts.number} calls")
        print(f"{'piece':<26} {'median':>8} {'min':>8}")
        for piece in pieces:
            print(f"{piece:<26} {med[piece]:8.3f} {low[piece]:8.3f}")
        for g in ("guard", "fused guard"):
            print(f"'{g} then work' - {g} - work (medians): {med[g + ' then work'] - med[g] - med['work']:+.3f} us")


if __name__ == "__main__":
    main()
