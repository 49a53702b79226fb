# run tool (nvidia-h200, cold start after one refused start), carry [".device"], 352 s.
bash benchmarks_results/s38_scripts/device_s38a.sh
