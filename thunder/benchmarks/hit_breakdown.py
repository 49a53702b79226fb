"""Where one cache hit of the fast path spends its time, piece by piece (minimum over repeats, µs per call).

    python thunder/benchmarks/hit_breakdown.py [--case params_1] [--device cpu]

Uses the cases of small_graph.py. Pieces: the whole call; for modules the fast callable without the
ThunderModule's nn.Module.__call__; the generated guard alone; the computation alone (prepared inputs); guard
then computation; eager.
"""

import argparse
import os
import sys
import timeit

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import small_graph  # noqa: E402

import thunder  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="params_1")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=50000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    case = next(c for c in small_graph.make_cases(args.device) if c.name == args.case)
    jitted = thunder.jit(case.fn, fastpath=True)
    torch.set_grad_enabled(not case.inference)
    for _ in range(3):
        jitted(*case.args)
    call = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    hit = call._lc_fastpath_state.hits[0]
    guard, comp, inputs = hit.guard, hit.computation, case.args
    prepared = guard(inputs, {})[0]
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    pieces = {
        "whole call": lambda: jitted(*inputs),
        "fast callable (no nn.Module.__call__)": lambda: call(*inputs),
        "guard": lambda: guard(inputs, {}),
        "computation": lambda: comp(*prepared),
        "guard, then computation": lambda: comp(*guard(inputs, {})[0]),
        "eager": lambda: case.fn(*inputs),
    }
    if hit.grad_off:
        print("note: this entry switches grad mode off around the computation; 'computation' here does not")
    for name, fn in pieces.items():
        def loop(fn=fn):
            for _ in range(args.number):
                fn()
            sync()
        best = min(timeit.repeat(loop, number=1, repeat=args.repeats)) / args.number * 1e6
        print(f"{name:<40} {best:8.3f} us")


if __name__ == "__main__":
    main()
