"""Session 42: the guards of small_graph.py's growth cases (no tensor under two names), built by the guard code before this
session (guard_before_s42.py) and by the working tree's, timed interleaved in one process (minima of 9 x 2000 calls, µs). This CPU."""
import sys, os, timeit, importlib.util, torch
sys.path.insert(0, "thunder/benchmarks")
import small_graph, thunder
from thunder.fastpath import guard as now
spec = importlib.util.spec_from_file_location("gb", "benchmarks_results/s42_scripts/guard_before_s42.py"); before = importlib.util.module_from_spec(spec); spec.loader.exec_module(before)
cases = {c.name: c for c in small_graph.make_cases("cpu")}
for name in ["params_32", "params_128", "inputs_16", "inputs_64"]:
    case = cases[name]
    torch.set_grad_enabled(not case.inference)
    j = thunder.jit(case.fn)
    for _ in range(3): j(*case.args)
    fast = j._forward_fn if isinstance(j, torch.nn.Module) else j
    entry = fast._lc_fastpath_state.hits[0].entry
    tm = j if isinstance(j, torch.nn.Module) else None
    gs = {n: m.build_guard(entry.prologue_traces[-1], case.args, {}, thunder_module=tm, compile_data=thunder.compile_data(j)).check for n, m in (("before", before), ("now", now))}
    res = {n: [] for n in gs}
    for _ in range(9):
        for n, g in gs.items():
            res[n].append(timeit.timeit(lambda: g(case.args, {}), number=2000) / 2000 * 1e6)
    print(name, {n: round(min(v), 2) for n, v in res.items()})
    torch.set_grad_enabled(True)
