# Session 27, device call B: the two ops that session 26's OpInfo search with --grad did not reach (instance_norm,
# item; session 24's opinfo_differential.py, default executors with nvFuser, float32), each in its own process
# (cores 0-7), while lightning-thunder's test_nvfuser runs with the fast path forced on and off (cores 8-15).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
for op in instance_norm item; do
  timeout 470 taskset -c 0-7 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --grad \
    --ops $op 2>&1 | grep -v -i warn > "$OUT/opinfo_cuda_grad_$op.log" &
done
(SHIPPED_TIMEOUT=400 LOG=test_nvfuser.log taskset -c 8-15 bash .ci/gpu_run.sh shipped > /dev/null 2>&1) &
wait
uptime | tee -a "$OUT/uptime.log"
for op in instance_norm item; do echo "== $op"; tail -n 5 "$OUT/opinfo_cuda_grad_$op.log"; done
tail -n 5 "$OUT/test_nvfuser.log"
