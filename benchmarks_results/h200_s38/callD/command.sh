# run tool (nvidia-h200, warm after call C), carry [".device"], 460 s: the compare hit the script's 420 s limit
# (exit 124) with 810 tests collected; unfinished, not a comparison. Progress lines of the logs in logs.tar.gz.
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and (float16 or float64)"
