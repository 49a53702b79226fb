# run tool (nvidia-h200, warm after call B), carry [".device"], 310 s.
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and (bfloat16 or int64)"
