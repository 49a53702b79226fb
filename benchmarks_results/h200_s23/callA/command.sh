# run tool, kind nvidia-h200, carry [".device"], 364 s:
bash benchmarks_results/s23_scripts/device_s23a.sh
