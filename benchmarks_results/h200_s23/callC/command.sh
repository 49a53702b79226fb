# run tool, kind nvidia-h200, carry [".device"], 377 s:
bash benchmarks_results/s23_scripts/device_s23c.sh
