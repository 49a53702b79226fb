# Session 24, device call A (nvidia-h200): opinfo_differential.py on CUDA (Thunder's default executors, nvFuser
# included), float32, forward; 14 shards at once on the host's 16 cores, each stopped after 450 s (an op's line is
# printed when it is done, so a stopped shard's log still holds the ops it finished). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
N=14
for i in $(seq 0 $((N - 1))); do
  timeout 450 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --shard $i/$N \
    > "$OUT/opinfo_cuda_fwd_float32_shard$i.log" 2>&1 &
done
wait
uptime | tee -a "$OUT/uptime.log"
grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT"/opinfo_cuda_*.log | tee "$OUT/summary.log"
echo "ops done: $(cat "$OUT"/opinfo_cuda_*.log | grep -c '^ok ')"
