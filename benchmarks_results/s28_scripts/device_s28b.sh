# Session 28, device call B: one accounting of a #1657 hit on one host, at the final code (unchanged since session
# 27): small_graph.py's #1657 rows, hit_breakdown.py's pieces, each guard line alone, and FastThunderModule.__call__
# against its variants (InlineDispatch added after call A); all pinned to one core, interleaved within each script.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
s=benchmarks_results/s28_scripts
uptime | tee "$OUT/uptime.log"
for run in 1 2; do
  timeout 80 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 2>&1 \
    | grep -v -i warn | tee "$OUT/small_graph_pinned_$run.log"
  timeout 120 taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --cases issue1657 --number 5000 \
    --repeats 15 2>&1 | grep -v -i warn | tee "$OUT/hit_breakdown_pinned_$run.log"
  timeout 60 taskset -c 5 python3 $s/guard_line_costs.py --device cuda --case issue1657 --number 100000 2>&1 \
    | grep -v -i warn | tee "$OUT/guard_line_costs_$run.log"
  timeout 120 taskset -c 5 python3 $s/module_call_variants.py --device cuda --case issue1657 --number 5000 \
    --repeats 15 2>&1 | grep -v -i warn | tee "$OUT/module_call_variants_$run.log"
done
uptime | tee -a "$OUT/uptime.log"
