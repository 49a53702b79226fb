# run tool (nvidia-h200, warm after call E), carry [".device"], 180 s (174 s left).
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and bool8"
