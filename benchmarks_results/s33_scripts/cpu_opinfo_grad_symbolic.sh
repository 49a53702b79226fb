# Session 33, this CPU: session 24's OpInfo search with gradients under "symbolic values" (float32, two shards at
# once): the one combination of --grad and --cache that had not run. From the checkout's root; writes
# benchmarks_results/s33_scripts/logs/.
set -uo pipefail
logs=benchmarks_results/s33_scripts/logs
for i in 0 1; do
  timeout 2400 .venv/bin/python benchmarks_results/s24_scripts/opinfo_differential.py --grad --cache "symbolic values" \
    --shard $i/2 > $logs/opinfo_grad_float32_symbolic_shard$i.log 2>&1 &
done
wait
