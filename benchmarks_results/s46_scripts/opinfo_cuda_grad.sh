# Session 46, device calls A and B (nvidia-h200): session 24's opinfo_differential.py with --grad on CUDA (float32,
# Thunder's default executors with nvFuser; gradients compared with upstream's after every call), at the code of
# sessions 39-45 (functorch wrappers, tied names, autocast, layouts), last run on CUDA in session 30 (call B).
# Usage: bash opinfo_cuda_grad.sh CACHE  ("constant values", or "symbolic values", never run on CUDA with --grad;
# under it getitem is left out: upstream's own device-side assert, session 25, would stop its shard's CUDA context).
# 14 shards at once, each stopped after TIMEOUT s (a stopped shard's log keeps the ops it finished).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
CACHE=${1:-constant values}; TIMEOUT=${TIMEOUT:-400}
tag=$(echo "$CACHE" | cut -d' ' -f1)
{ echo "cache: $CACHE"; git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
ops=""
if [ "$CACHE" = "symbolic values" ]; then
  ops=$(python3 -c "from thunder.tests.opinfos import opinfos; print(','.join(sorted({o.name for o in opinfos} - {'getitem'})))" 2>/dev/null)
fi
N=14
mkdir -p /tmp/shards
for i in $(seq 0 $((N - 1))); do
  timeout $TIMEOUT python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --grad --cache "$CACHE" \
    ${ops:+--ops "$ops"} --shard $i/$N > "/tmp/shards/grad_$i.log" 2>&1 &
done
wait
for i in $(seq 0 $((N - 1))); do echo "=== shard $i/$N"; grep -v -i warn "/tmp/shards/grad_$i.log"; done \
  > "$OUT/opinfo_cuda_grad_float32_$tag.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT/opinfo_cuda_grad_float32_$tag.log"
echo "ops done: $(grep -c '^ok ' "$OUT/opinfo_cuda_grad_float32_$tag.log")"
