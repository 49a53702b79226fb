# run tool (the device was an NVIDIA H200), carry [".device"], 343 s; the script as it ran (at 8623d9c plus records):
bash benchmarks_results/s27_scripts/device_s27d.sh
