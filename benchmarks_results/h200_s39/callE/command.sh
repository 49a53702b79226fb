# run tool (nvidia-h200, cold start after a refused start), carry [".device"], 400 s (357 s left).
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and int32"
