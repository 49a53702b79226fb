# run tool (nvidia-h200, warm after call A), carry [".device"], 520 s. prev/ holds call A's unfinished off log.
mkdir -p $OUT/prev && cp /tmp/s38b_logs/off.log $OUT/prev/off_float16_call1.log 2>/dev/null; WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and float64"
