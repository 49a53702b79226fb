# run tool (the device was an NVIDIA H200), carry [".device"]; the script as it ran (unchanged since):
bash benchmarks_results/s26_scripts/device_s26c.sh
