# run tool (nvidia-h200, the machine of call A, warm), carry [".device"], 220 s; session 30's script, unchanged
# (code_sha1.log: the runtime code and small_graph.py as committed in 9da00ea):
bash benchmarks_results/s30_scripts/device_s30c.sh 2>&1 | tail -60
