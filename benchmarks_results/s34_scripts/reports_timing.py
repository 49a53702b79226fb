# Session 34, this CPU: test_dynamo::test_thunder_specific_reports' in-process part (the reports, without the
# subprocesses that run them), on the CPU, six times in one process with the fast path on or off (argv[1]).
# Run as: for m in off on off on; do .venv/bin/python benchmarks_results/s34_scripts/reports_timing.py $m | tail -1; done
import sys, time, tempfile, pathlib, warnings
warnings.filterwarnings("ignore")
import torch, thunder
import thunder.fastpath
from thunder.dynamo.report import fx_report, analyze_thunder_splits
on = sys.argv[1] == "on"
(thunder.fastpath.enable if on else thunder.fastpath.disable)()
def foo(x):
    x = x.exp()
    torch._dynamo.graph_break()
    y = torch.sinc(x) + torch.cos(x)
    return y + 1
times = []
for i in range(6):
    x = torch.ones(2, 2, requires_grad=True)
    torch._dynamo.reset()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        results = fx_report(foo)(x)
        for idx, r in enumerate(results.fx_graph_reports):
            tr = analyze_thunder_splits(r)
            tr.write_thunder_repro(tmp)
            for sr in tr.subgraph_reports:
                sr.write_eager_repro(tmp / str(idx)); sr.write_thunder_repro(tmp / str(idx))
        n = len(list(tmp.rglob("*.py")))
    times.append(time.perf_counter() - t0)
print(sys.argv[1], "files", n, "seconds per example", [round(t, 3) for t in times], "enabled", thunder.fastpath.is_enabled())
