# run tool, kind nvidia-h200, carry [".device"], 425 s:
bash benchmarks_results/s22_scripts/device_s22b.sh
