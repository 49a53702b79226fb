# run tool (the device was an NVIDIA H200, the same machine as call B, warm), carry [".device"], 186 s; session 30's
# script, unchanged (code_sha1.log: the runtime code and small_graph.py as committed in 9da00ea):
bash benchmarks_results/s30_scripts/device_s30c.sh
