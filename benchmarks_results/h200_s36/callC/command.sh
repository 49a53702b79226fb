# run tool (nvidia-h200, a fresh machine), carry [".device"], 275 s: call A's comparison with
# gpu_mem_limit_option.py as it is now (pytest_configure gives the late option its default) and .ci/fastpath_site's
# report; then #1657 alone twice, pinned to core 5.
mkdir -p $OUT && LIMIT=300 bash benchmarks_results/s36_scripts/device_s36c.sh 2>&1 | grep -v -i warn | tail -20
