# run tool, kind nvidia-h200, carry [".device"], 236 s (warm machine, right after call A):
bash benchmarks_results/s23_scripts/device_s23b.sh
