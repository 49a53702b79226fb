# run tool (the device was an NVIDIA H200, a fresh machine), carry [".device"], 257 s; the script as it ran
# (code_sha1.log: the runtime code as committed in 9da00ea and session 19's training_loops.py):
LIMIT=460 N=16 bash benchmarks_results/s31_scripts/device_s31d.sh
