# run tool (nvidia-h200, warm: the machine of call B), carry [".device"], 210 s.
bash benchmarks_results/s37_scripts/device_s37c.sh
