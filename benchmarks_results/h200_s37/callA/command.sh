# run tool (nvidia-h200, a fresh machine), carry [".device"], 246 s at b76c0dd (the device copy's git log printed
# 7cd4ba7, the previous commit; the sha1sums in versions_and_uptime.log are the runtime code that ran).
bash benchmarks_results/s37_scripts/device_s37a.sh
