# run tool (the device was an NVIDIA H200), carry [".device"], 95 s; the script as it ran:
bash benchmarks_results/s27_scripts/device_s27c.sh
