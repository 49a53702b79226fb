# run tool (the device was an NVIDIA H200), carry [".device"], 345 s; the script as it ran (code_sha1.log: the runtime
# code as committed in 9da00ea; a first attempt of this call got no machine; the script's header comment was
# rewrapped after the run):
bash benchmarks_results/s30_scripts/device_s30b.sh
