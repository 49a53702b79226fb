# run tool (the device was an NVIDIA H200), carry [".device"]; the script as it ran (unchanged since):
bash benchmarks_results/s24_scripts/device_s24a.sh
