"""The two_8x8 hit function (small_graph.py's case) against the same source rewritten by hand: the arguments unpacked as
`a, b = args` in place of the length check and two subscripts ("unpack"), the default dtype compared with a bound
constant ("f32"), both ("both"); interleaved, 21 x 20,000 calls, min and median us. Run from the repository root:
.venv/bin/python benchmarks_results/s30_scripts/hit_micro_rewrites.py
"""
import os, sys, timeit, torch
sys.path.insert(0, "thunder/benchmarks")
import small_graph, hit_breakdown
case = next(c for c in small_graph.make_cases("cpu") if c.name == "two_8x8")
jitted, fast, hit = hit_breakdown.jit_and_hit(case)
src = hit.source
v1 = src.replace("        if not (len(args) == 2): return __MISS\n", "").replace("        a = args[0]\n        b = args[1]\n", "        a, b = args\n")
v2 = src.replace("is not torch.float32", "is not __f32")
v3 = v1.replace("is not torch.float32", "is not __f32")
fns = {}
for n, s in {"full": src, "unpack": v1, "f32": v2, "both": v3}.items():
    ns = dict(hit.call.__globals__); ns["__f32"] = torch.float32
    exec(compile(s, "v", "exec"), ns); fns[n] = ns["hit"]
args = case.args
samples = {n: [] for n in fns}
for _ in range(21):
    for n, fn in fns.items():
        def loop(fn=fn):
            for _ in range(20000): fn(args, {})
        samples[n].append(timeit.timeit(loop, number=1) / 20000 * 1e6)
import statistics
for n in fns: print(n, round(min(samples[n]), 3), round(statistics.median(samples[n]), 3))
