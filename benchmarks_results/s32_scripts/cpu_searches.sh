# Session 32, this CPU: session 25's transforms search and session 24's OpInfo search with gradients (float32, two
# shards at once), at the current code, both for the first time since session 29's autograd.py. The commands as they
# were run, from the checkout's root. Writes benchmarks_results/s32_scripts/logs/.
set -uo pipefail
logs=benchmarks_results/s32_scripts/logs
(time timeout 1200 .venv/bin/python benchmarks_results/s25_scripts/transforms_differential.py) > $logs/transforms_differential_cpu.log 2>&1
for i in 0 1; do
  timeout 1500 .venv/bin/python benchmarks_results/s24_scripts/opinfo_differential.py --grad --shard $i/2 > $logs/opinfo_grad_float32_shard$i.log 2>&1 &
done
wait
