# Session 26, device call B: opinfo_differential.py (session 24's script) on CUDA at this session's runtime code,
# Thunder's default executors (nvFuser included), forward, in bfloat16 (9 shards) and int64 (7 shards), all 16 at
# once, each stopped after 400 s (a stopped shard's log still holds the ops it finished), joined into one file per
# dtype. Alongside, float32 with --grad: the three ops that call A's 400 s limit cut off, and
# grad_forward_scaled_dot_product_attention (which differed in call A, on a miss) again, with --control (upstream
# against upstream) and with --deterministic. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
mkdir -p /tmp/shards
for spec in bfloat16:9 int64:7; do
  dtype=${spec%:*}; N=${spec#*:}
  for i in $(seq 0 $((N - 1))); do
    timeout 400 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --dtype $dtype \
      --shard $i/$N > "/tmp/shards/${dtype}_$i.log" 2>&1 &
  done
done
script=benchmarks_results/s24_scripts/opinfo_differential.py
sdpa=grad_forward_scaled_dot_product_attention
timeout 400 python3 $script --device cuda --grad --ops batch_norm,instance_norm,item > /tmp/shards/grad_rest.log 2>&1 &
(for extra in "" --control --deterministic; do
   echo "=== --grad $extra"; timeout 130 python3 $script --device cuda --grad $extra --ops $sdpa 2>&1 | grep -v -i warn
 done > "$OUT/opinfo_cuda_grad_sdpa.log") &
wait
grep -v -i warn /tmp/shards/grad_rest.log > "$OUT/opinfo_cuda_grad_float32_rest.log"
grep -h -E "^(ok|DIFFERS|SETUP|summary|===)" "$OUT/opinfo_cuda_grad_float32_rest.log" "$OUT/opinfo_cuda_grad_sdpa.log"
for spec in bfloat16:9 int64:7; do
  dtype=${spec%:*}; N=${spec#*:}
  for i in $(seq 0 $((N - 1))); do echo "=== shard $i/$N"; grep -v -i warn "/tmp/shards/${dtype}_$i.log"; done \
    > "$OUT/opinfo_cuda_fwd_$dtype.log"
  grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT/opinfo_cuda_fwd_$dtype.log"
  echo "$dtype ops done: $(grep -c '^ok ' "$OUT/opinfo_cuda_fwd_$dtype.log")"
done
uptime | tee -a "$OUT/uptime.log"
