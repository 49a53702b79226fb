# run tool (nvidia-h200, cold start), carry [".device"], 281 s. The script's WORKERS override was added after this
# call; its default (6) is what ran.
bash benchmarks_results/s38_scripts/device_s38b.sh
