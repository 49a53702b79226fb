# run tool (nvidia-h200, warm after call B), carry [".device"], 520 s.
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and float16 and not bfloat16"
