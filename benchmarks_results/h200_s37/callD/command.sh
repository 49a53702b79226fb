# run tool (nvidia-h200, warm: the machine of calls B and C), carry [".device"], 166 s.
bash benchmarks_results/s37_scripts/device_s37d.sh
