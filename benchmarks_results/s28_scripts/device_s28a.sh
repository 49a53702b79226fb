# Session 28, device call A: where FastThunderModule.__call__'s time goes on the H200 host (Python 3.12), and each
# guard line's cost there; all pinned to one core. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
s=benchmarks_results/s28_scripts
uptime | tee "$OUT/uptime.log"
for c in issue1657 rmsnorm_1x2880; do
  timeout 120 taskset -c 5 python3 $s/module_call_variants.py --device cuda --case $c --number 5000 --repeats 15 2>&1 \
    | grep -v -i warn | tee "$OUT/module_call_variants_$c.log"
done
timeout 60 taskset -c 5 python3 $s/module_call_variants.py --device cpu --case params_1 --repeats 15 2>&1 \
  | grep -v -i warn | tee "$OUT/module_call_variants_params_1_cpu.log"
for c in issue1657 inputs_16; do
  timeout 60 taskset -c 5 python3 $s/guard_line_costs.py --device cuda --case $c --number 100000 2>&1 \
    | grep -v -i warn | cut -c1-160 | tee "$OUT/guard_line_costs_$c.log"
done
uptime | tee -a "$OUT/uptime.log"
