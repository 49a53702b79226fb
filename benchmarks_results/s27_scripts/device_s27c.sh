# Session 27, device call C: global_state_fallback_cost.py on the H200 (pinned to one core): a hit with the guard's
# GlobalStateGuard line against the same guard with the exact state checks (guard.py's fallback), on CUDA (#1657,
# RMSNorm 1x2880) and on the host CPU (two_8x8, params_1, inputs_1). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
for run in 1 2; do
  timeout 120 taskset -c 5 python3 benchmarks_results/s27_scripts/global_state_fallback_cost.py --device cuda \
    --cases issue1657,rmsnorm_1x2880 --number 5000 --repeats 21 2>&1 | grep -v -i warn | tee "$OUT/cuda_run$run.log"
  timeout 120 taskset -c 5 python3 benchmarks_results/s27_scripts/global_state_fallback_cost.py --device cpu \
    --cases two_8x8,params_1,inputs_1 --number 20000 --repeats 15 2>&1 | grep -v -i warn | tee "$OUT/host_cpu_run$run.log"
done
uptime | tee -a "$OUT/uptime.log"
