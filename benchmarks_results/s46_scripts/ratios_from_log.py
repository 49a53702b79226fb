"""Session 46: the figures quoted in BENCHMARKS.md from a small_graph.py log (its table lines, optionally prefixed
'run N | '): fast / computation, fast / eager, fast / fd.fec.execute, fast - computation, and the growth of
fast - computation per tensor input (inputs_16 -> 64) and per parameter (params_32 -> 128), from medians and minima.

Usage: python ratios_from_log.py LOG
"""
import re
import sys
from collections import defaultdict

rows = defaultdict(dict)  # (run, case) -> system -> (median, min)
for line in open(sys.argv[1]):
    m = re.match(r"(?:run (\d+) \| )?(\w+)\s+(eager|thunder|fast|computation|nvfuser-fec\.execute)\s+([\d.]+)\s+([\d.]+)", line)
    if m:
        run, case, system, median, minimum = m.groups()
        rows[(run or "-", case)][system] = (float(median), float(minimum))

for (run, case), r in rows.items():
    if "fast" not in r or "computation" not in r:
        continue
    fast, comp = r["fast"][0], r["computation"][0]
    parts = [f"fast/computation {fast / comp:.3f}", f"fast-computation {fast - comp:.2f} us"]
    if "eager" in r:
        parts.append(f"fast/eager {fast / r['eager'][0]:.3f}")
    if "nvfuser-fec.execute" in r:
        parts.append(f"fast/fec {fast / r['nvfuser-fec.execute'][0]:.3f}")
    print(f"run {run} {case}: " + ", ".join(parts))

for small, large, n, what in (("inputs_16", "inputs_64", 48, "tensor input"), ("params_32", "params_128", 96, "parameter")):
    for run in sorted({run for run, _ in rows}):
        a, b = rows.get((run, small)), rows.get((run, large))
        if a and b and "computation" in a and "computation" in b:
            g = [((b["fast"][i] - b["computation"][i]) - (a["fast"][i] - a["computation"][i])) / n for i in (0, 1)]
            print(f"run {run} growth per {what}: {g[0]:.3f} us from medians, {g[1]:.3f} from minima")
