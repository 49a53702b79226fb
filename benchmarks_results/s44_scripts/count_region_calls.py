"""Session 44: how many FusionRegion calls one call makes, for small_models.py's nanoGPT one token with and without
bfloat16 autocast: the whole jitted call, the hit function, and the computation as small_graph.py times it. (Call C's
cProfile listed 301 FusionRegion.__call__ frames for 50 whole calls against 151 for 50 computation calls.)
FusionRegion.__call__ and prepare_and_call are wrapped with counters on the class.

    python count_region_calls.py [cuda]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import small_models  # noqa: E402

import thunder  # noqa: E402
from thunder.fastpath.nvfuser import FusionRegion  # noqa: E402

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
counts = {"__call__": 0, "prepare_and_call": 0}
for name in counts:
    original = getattr(FusionRegion, name)

    def counting(self, *args, _original=original, _name=name):
        counts[_name] += 1
        return _original(self, *args)

    setattr(FusionRegion, name, counting)

for autocast in (None, torch.bfloat16):
    case = next(c for c in small_models.make_cases(device, autocast) if c.name.startswith("nanogpt_1tok"))
    with small_graph.case_context(case):
        jitted = thunder.jit(case.fn, fastpath=True)
        for _ in range(3):
            jitted(*case.args)
        hit = jitted._forward_fn._lc_fastpath_state.hits[0]
        trace = hit.entry.computation_traces[-1]
        regions = [k for k, v in trace.python_ctx().items() if isinstance(v, FusionRegion)]
        pieces = {
            "whole call": lambda: jitted(*case.args),
            "hit function": lambda: hit.call(case.args, {}),
            "computation (small_graph)": small_graph.computation_only(jitted)(*case.args),
        }
        print(f"== {case.name}: {len(regions)} FusionRegions in the computation's trace; hits so far "
              f"{thunder.cache_hits(jitted)} of {thunder.compile_stats(jitted).calls} calls")
        for piece, fn in pieces.items():
            for k in counts:
                counts[k] = 0
            for _ in range(10):
                fn()
            print(f"{piece:28s} per call: FusionRegion.__call__ {counts['__call__'] / 10:.1f}, "
                  f"prepare_and_call {counts['prepare_and_call'] / 10:.1f}")
