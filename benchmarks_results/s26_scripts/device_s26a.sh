# Session 26, device call A: opinfo_differential.py (session 24's script) on CUDA at this session's runtime code,
# Thunder's default executors (nvFuser included), float32, with --grad (floating inputs require grad; gradients
# compared after every call); 14 shards at once, each stopped after 400 s (a stopped shard's log still holds the ops
# it finished), joined into one file. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
N=14
mkdir -p /tmp/shards
for i in $(seq 0 $((N - 1))); do
  timeout 400 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --grad --shard $i/$N \
    > "/tmp/shards/grad_$i.log" 2>&1 &
done
wait
for i in $(seq 0 $((N - 1))); do echo "=== shard $i/$N"; grep -v -i warn "/tmp/shards/grad_$i.log"; done \
  > "$OUT/opinfo_cuda_grad_float32.log"
uptime | tee -a "$OUT/uptime.log"
grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT/opinfo_cuda_grad_float32.log"
echo "ops done: $(grep -c '^ok ' "$OUT/opinfo_cuda_grad_float32.log")"
