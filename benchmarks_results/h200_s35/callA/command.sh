# run tool (nvidia-h200, a fresh machine after one refused start that cost 91 s), carry [".device"], 210 s:
# test_overhead.py whole at c3aa883's test code with pytest-xdist (-n 8, cores 0-11), then #1657 alone four times
# (31 repeats, pinned to core 5), nothing else running.
mkdir -p $OUT && LIMIT=300 bash benchmarks_results/s35_scripts/device_s35a.sh 2>&1 | tail -30
