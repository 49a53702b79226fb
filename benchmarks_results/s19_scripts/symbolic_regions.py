"""Why no hit under "symbolic values" calls an nvFuser region's executor directly (H200; not in CI).

Jits two functions on CUDA with both cache options, calls each three times, and prints, per option, the
computation trace's bound symbols (after unpacking, comments and deletions), whether the fast path's hit took the
direct region call (``single_region_call``) and the computation's source under "symbolic values".

    python3 benchmarks_results/s19_scripts/symbolic_regions.py
"""

import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401
from thunder.core.prims import PrimIDs

warnings.filterwarnings("ignore")


def issue1657(x):
    y = torch.sin(x)
    return y, y.sum() > 0


def scaled_sum(a, b):
    return a * 2.0 + b


SKIPPED = (PrimIDs.UNPACK_TRIVIAL, PrimIDs.DEL, PrimIDs.COMMENT)

for fn, make in ((issue1657, lambda: (torch.randn(400, 400, device="cuda"),)),
                 (scaled_sum, lambda: (torch.randn(8, 8, device="cuda"), torch.randn(8, 8, device="cuda")))):
    for cache in ("constant values", "symbolic values"):
        jitted = thunder.jit(fn, cache=cache)
        for _ in range(3):
            jitted(*make())
        trace = thunder.last_traces(jitted)[-1]
        body = [b.sym.name for b in trace.bound_symbols if b.sym.id not in SKIPPED]
        hits = jitted._lc_fastpath_state.hits
        print(f"{fn.__name__}, {cache}: hits {thunder.cache_hits(jitted)}, misses {thunder.cache_misses(jitted)}; "
              f"computation body {body}; direct region call: {[h.region_call is not None for h in hits]}")
        if cache == "symbolic values":
            print(trace.python(print_depth=0))
