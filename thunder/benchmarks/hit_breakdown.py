"""Where one cache hit of the fast path spends its time, piece by piece (µs per call, minimum over repeats).

    python thunder/benchmarks/hit_breakdown.py [--cases params_1,two_8x8] [--device cpu|cuda] [--profile]

Uses the cases of small_graph.py; the pieces are interleaved repeat by repeat. Pieces: the whole call; for
modules the fast callable without the module's __call__; the entry's generated hit function (guard + call); the
guard alone; the computation alone with prepared inputs, with and without the grad-mode switch that the hit
makes; on CUDA, for a computation with one nvFuser region: the region's call, its layout check, the executor
call that the region makes, and nvFuser's fd.fec.execute and fd.execute with a list; eager. With --profile,
also cProfile's view of the whole call (tottime per frame: which frames remain, not their true cost, since the
profiler adds its own).
"""

import argparse
import cProfile
import os
import pstats
import sys
import timeit

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import thunder  # noqa: E402
from thunder.fastpath.nvfuser import FusionRegion  # noqa: E402

import small_graph  # noqa: E402


def jit_and_hit(case):
    """The case jitted with the fast path and called until it hits: (jitted, its fast callable, its first guarded
    entry). A module's guard holds the jitted module weakly: keep ``jitted`` alive while the entry is used."""
    jitted = thunder.jit(case.fn, fastpath=True)
    for _ in range(3):
        jitted(*case.args)
    fast = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    return jitted, fast, fast._lc_fastpath_state.hits[0]


def pieces_of(case):
    jitted, fast, hit = jit_and_hit(case)
    args, comp, check, call = case.args, hit.computation, hit.guard.check, hit.call
    prepared = check(args, {})[0]
    pieces = {"whole call": lambda: jitted(*args)}
    if fast is not jitted:
        pieces["fast callable (no module __call__)"] = lambda: fast(*args)
    pieces["hit function (guard + call)"] = lambda: call(args, {})
    pieces["guard"] = lambda: check(args, {})
    if hit.made_with_grad:
        # small_graph's "computation" system: with the grad switch where the hit makes one (a single nvFuser region
        # whose outputs are new, or a computation whose outputs are new on the guard's layout, leaves grad mode as
        # it is: hit_function.py)
        pieces["computation as small_graph times it"] = small_graph.computation_only(fast)(*args)
    pieces["computation"] = lambda: comp(*prepared)
    regions = [v for v in comp.__globals__.values() if isinstance(v, FusionRegion)]
    region_args = None
    if len(regions) == 1:
        region = regions[0]
        region.store_inputs = True
        comp(*prepared)
        region_args = region.last_inputs
        region.store_inputs = False
    if len(regions) == 1 and region_args is not None:
        fd = region.last_used
        as_list = list(region_args)
        pieces["nvFuser region call"] = lambda: region(*region_args)
        if region.same_layout is not None:
            layout_args = region_args if region.pick_tensors is None else region.pick_tensors(region_args)
            pieces["region's layout check"] = lambda: region.same_layout.check(*layout_args)
        execute = region.prepared.execute
        pieces["region's executor call"] = lambda: execute(region_args)
        pieces["fd.fec.execute(list)"] = lambda: fd.fec.execute(as_list)
        pieces["fd.fec.execute(tuple)"] = lambda: fd.fec.execute(region_args)
        pieces["fd.execute(list)"] = lambda: fd.execute(as_list)
    pieces["eager"] = lambda: case.fn(*args)
    return pieces


def time_interleaved(pieces, number, repeats, sync):
    """µs per call of each piece: one sample per repeat (``number`` calls, then ``sync()``), the pieces interleaved
    repeat by repeat."""
    samples = {piece: [] for piece in pieces}
    for _ in range(repeats):
        for piece, fn in pieces.items():

            def loop(fn=fn):
                for _ in range(number):
                    fn()
                sync()

            samples[piece].append(timeit.timeit(loop, number=1) / number * 1e6)
    return samples


def timed_cases(device, names, pieces_of, number, repeats):
    """For each of small_graph.py's cases named in ``names`` (comma-separated): ``(case, pieces, samples)``, the pieces
    made by ``pieces_of(case)`` (None skips the case) and timed by ``time_interleaved``, in the grad mode and autocast
    that the case runs in (``small_graph.case_context``)."""
    cases = {c.name: c for c in small_graph.make_cases(device)}
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for name in names.split(","):
        case = cases[name]
        with small_graph.case_context(case):  # also around the caller's use of the yielded pieces (--profile)
            pieces = pieces_of(case)
            if pieces is not None:
                yield case, pieces, time_interleaved(pieces, number, repeats, sync)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="params_1")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for case, pieces, samples in timed_cases(args.device, args.cases, pieces_of, args.number, args.repeats):
        autocast = f", autocast {case.autocast}" if case.autocast is not None else ""
        print(f"== {case.name} ({'no_grad' if case.inference else 'grad enabled'}{autocast})")
        for piece, times in samples.items():
            print(f"{piece:<40} {min(times):8.3f} us")
        if args.profile:
            whole = pieces["whole call"]
            # Twice, printing the second: in a process's first profiled loop, each torch op called costs several
            # times more than in later ones (torch.mul on an 8-element CPU tensor: 5-10 µs against 1.2-1.7 µs).
            for _ in range(2):
                profiler = cProfile.Profile()
                profiler.runcall(lambda whole=whole: [whole() for _ in range(args.number)])
            pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
