"""Session 44: where a whole model's cache hit spends the time that its computation does not (small_models.py's
nanoGPT, one token), with and without bfloat16 autocast. Pieces, interleaved repeat by repeat (µs per call, median
and min): the whole call, the fast callable without the module's __call__, the entry's hit function, its guard
alone, the computation as small_graph.py times it (prepared inputs, switches as the hit makes them). Then cProfile
of the whole call and of the computation (tottime, top frames), to name what differs.

    python model_hit_pieces.py [cpu|cuda] [number] [repeats]
"""
import cProfile
import os
import pstats
import statistics
import sys
import timeit

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import small_models  # noqa: E402

import thunder  # noqa: E402

device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
number = int(sys.argv[2]) if len(sys.argv) > 2 else 20
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 9
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

for autocast in (None, torch.bfloat16):
    case = next(c for c in small_models.make_cases(device, autocast) if c.name.startswith("nanogpt_1tok"))
    with small_graph.case_context(case):
        jitted = thunder.jit(case.fn, fastpath=True)
        for _ in range(3):
            jitted(*case.args)
        fast = jitted._forward_fn
        state = fast._lc_fastpath_state
        hit = state.hits[0]
        args = case.args
        pieces = {
            "whole call": lambda: jitted(*args),
            "fast callable": lambda: fast(*args),
            "hit function": lambda: hit.call(args, {}),
            "guard": lambda: hit.guard.check(args, {}),
            "computation (small_graph)": small_graph.computation_only(jitted)(*args),
        }
        samples = {k: [] for k in pieces}
        for _ in range(repeats):
            for k, fn in pieces.items():
                fn()
                sync()
                start = timeit.default_timer()
                for _ in range(number):
                    fn()
                sync()
                samples[k].append((timeit.default_timer() - start) / number * 1e6)
        print(f"== {case.name} ({device}; entries {len(state.hits)}, unsupported {state.unsupported}, "
              f"calls {thunder.compile_stats(jitted).calls}, hits {thunder.cache_hits(jitted)}; "
              f"autocast_restored {hit.autocast_restored}, grad_off {hit.grad_off})")
        for k, s in samples.items():
            print(f"{k:28s} median {statistics.median(s):9.2f}  min {min(s):9.2f}")
        for k in ("whole call", "computation (small_graph)"):
            fn = pieces[k]
            for _ in range(2):  # the second profile is printed: the first one's op calls cost more
                profiler = cProfile.Profile()
                profiler.runcall(lambda: [fn() for _ in range(number)])
                sync()
            print(f"-- cProfile, {k}, {number} calls")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(14)
