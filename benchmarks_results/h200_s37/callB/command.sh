# run tool (nvidia-h200, a fresh machine after one refused start), carry [".device"], 476 s at 9b361f8. The
# whole-module comparison hit its 330 s limit during the fast-path-off run (logs/hf/off.log is that unfinished
# run); call C ran it alone.
bash benchmarks_results/s37_scripts/device_s37b.sh
