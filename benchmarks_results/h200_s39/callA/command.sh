# run tool (nvidia-h200, cold start), carry [".device"], 560 s. -k "float16" also matches bfloat16: 539 tests; the
# fast-path-off run did not finish within the script's 420 s limit (exit 124). Not a comparison; see callC for float16 alone.
WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and float16"
