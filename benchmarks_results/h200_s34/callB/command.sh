# run tool (nvidia-h200, warm after call A), carry [".device"], 223 s: session 30's script, #1657 alone (31 repeats),
# the full CUDA table (15 repeats), #1657 alone twice more, all pinned to core 5, at this session's code.
mkdir -p $OUT && bash benchmarks_results/s30_scripts/device_s30c.sh 2>&1 | tail -30
