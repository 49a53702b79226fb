# run tool, kind nvidia-h200, carry [".device"], 209 s:
bash benchmarks_results/s22_scripts/device_s22c.sh
