"""Session 43: an nvFuser region that gets one tensor in two input places (f(x, x)) against one that gets two tensors
(f(x, y)), upstream and fast path side by side (interleaved, small_graph.time_by_budget). Before session 43 the fast
path's region kept upstream's per-call descriptor lookup for f(x, x); now it checks the tensor once and the other
place by identity (nvfuser._LayoutWithRepeats), and the guard's alias check for f(x, x) no longer flattens the
arguments (guard.GuardBuilder.expected_aliasing)."""
import statistics
import sys

import torch

sys.path.insert(0, "thunder/benchmarks")
import thunder
import thunder.fastpath  # noqa: F401
from thunder.fastpath.nvfuser import FusionRegion
from small_graph import bitwise_equal, time_by_budget


def f(a, b):
    return (a * 2 + b).exp()


x, y = torch.randn(400, 400, device="cuda"), torch.randn(400, 400, device="cuda")
calls, outs = {}, {}
for fastpath in (False, True):
    name = "fast" if fastpath else "upstream"
    jitted_same = thunder.jit(f, fastpath=fastpath, executors=["nvfuser"])
    jitted_two = thunder.jit(f, fastpath=fastpath, executors=["nvfuser"])
    for _ in range(3):
        outs[f"{name} f(x, x)"] = jitted_same(x, x)
        outs[f"{name} f(x, y)"] = jitted_two(x, y)
    calls[f"{name} f(x, x)"] = lambda j=jitted_same: j(x, x)
    calls[f"{name} f(x, y)"] = lambda j=jitted_two: j(x, y)
    if fastpath:
        for label, j in (("f(x, x)", jitted_same), ("f(x, y)", jitted_two)):
            entry = thunder.compile_stats(j).interpreter_cache[-1]
            regions = [r for r in entry.computation_traces[-1].python_ctx().values() if type(r) is FusionRegion]
            print(label, "regions:", [(r.name, r.tensor_indices, type(r.prepared[0]).__name__) for r in regions])
calls["eager f(x, x)"] = lambda: f(x, x)
print("bitwise f(x, x):", bitwise_equal(outs["upstream f(x, x)"], outs["fast f(x, x)"]),
      "f(x, y):", bitwise_equal(outs["upstream f(x, y)"], outs["fast f(x, y)"]))
samples = time_by_budget(calls, repeats=15, budget_s=0.05)
med = {k: statistics.median(v) for k, v in samples.items()}
for k, v in med.items():
    print(f"{k:18s} median {v:8.2f} us  min {min(samples[k]):8.2f}")
for args in ("f(x, x)", "f(x, y)"):
    print(f"{args}: fast/upstream {med['fast ' + args] / med['upstream ' + args]:.3f}, upstream-fast "
          f"{med['upstream ' + args] - med['fast ' + args]:.2f} us")
