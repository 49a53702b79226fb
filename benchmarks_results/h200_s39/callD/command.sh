# run tool (nvidia-h200, warm after call C), carry [".device"], 420 s.
bash benchmarks_results/s39_scripts/device_s39d.sh
