# Session 24, device call B (nvidia-h200): (1) call A's one difference, scatter_add on CUDA: upstream against a
# second upstream callable (--control) and the fast path against upstream, three times each, then both with
# torch's deterministic kernels, also for the other ops that accumulate with atomics on CUDA (index_add, index_put,
# scatter); (2) opinfo_differential.py --grad on CUDA, float32, 14 shards at once, each stopped after 400 s (the
# shards' logs are joined into one file). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
script=benchmarks_results/s24_scripts/opinfo_differential.py
uptime | tee "$OUT/uptime.log"
ops=scatter_add,index_add,index_put,scatter
{
  for r in 1 2 3; do
    for mode in --control ""; do
      echo "== round $r ${mode:-fast path}"
      timeout 60 python3 $script --device cuda --ops $ops $mode 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)"
    done
  done
  for mode in --control ""; do
    echo "== deterministic ${mode:-fast path}"
    timeout 60 python3 $script --device cuda --ops $ops --deterministic $mode 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)"
  done
} > "$OUT/atomics.log" 2>&1
cat "$OUT/atomics.log"
N=14
mkdir -p /tmp/shards
for i in $(seq 0 $((N - 1))); do
  timeout 400 python3 $script --device cuda --grad --shard $i/$N > "/tmp/shards/grad_$i.log" 2>&1 &
done
wait
for i in $(seq 0 $((N - 1))); do echo "=== shard $i/$N"; grep -v -i warn "/tmp/shards/grad_$i.log"; done \
  > "$OUT/opinfo_cuda_grad_float32.log"
uptime | tee -a "$OUT/uptime.log"
grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT/opinfo_cuda_grad_float32.log"
echo "ops done: $(grep -c '^ok ' "$OUT/opinfo_cuda_grad_float32.log")"
