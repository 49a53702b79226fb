# run tool (the device was an NVIDIA H200, a freshly started machine), carry [".device"], 208 s; the script as it ran
# (uptime.log did not come back):
bash benchmarks_results/s28_scripts/device_s28b.sh
