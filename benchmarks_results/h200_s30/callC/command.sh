# run tool (the device was an NVIDIA H200), carry [".device"], 191 s; the script as it ran (code_sha1.log: the runtime
# code and small_graph.py as committed in 9da00ea):
bash benchmarks_results/s30_scripts/device_s30c.sh
