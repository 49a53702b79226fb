"""Session 42: the nvFuser regions of small_models.py's cases after a few hits (fast path): does any region keep
upstream's per-call descriptor lookup (``FusionRegion.prepared`` None: one tensor in two places among its inputs)?

    python benchmarks_results/s42_scripts/regions_of_models.py"""
import os, sys
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_models  # noqa: E402
import thunder  # noqa: E402
from thunder.fastpath.nvfuser import FusionRegion  # noqa: E402

torch.manual_seed(0)
for case in small_models.make_cases("cuda"):
    jitted = thunder.jit(case.fn, fastpath=True)
    with torch.no_grad():
        for _ in range(4):
            jitted(*case.args)
    state = jitted._forward_fn._lc_fastpath_state
    hit = state.hits[0]
    regions = [v for v in hit.computation.__globals__.values() if isinstance(v, FusionRegion)]
    unprepared = [r.name for r in regions if r.prepared is None]
    trace = thunder.last_traces(jitted)[-1]
    others = sorted({b.sym.name for b in trace.bound_symbols if not b.sym.name.startswith("nvFusion")} - {"return", "unpack_trivial", "del", "python_del"})
    print(f"{case.name}: {len(regions)} regions, prepared for none: {unprepared}; hits {thunder.cache_hits(jitted)}, "
          f"misses {thunder.cache_misses(jitted)}, entries guarded {len(state.hits)}, unsupported {state.unsupported}")
    print(f"  other symbols in the computation: {others}")
