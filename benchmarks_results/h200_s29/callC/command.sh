# run tool (the device was an NVIDIA H200), carry [".device"], 571 s; the script as it ran (code_sha1.log: the runtime
# code as committed in a1be4a5). The off run was cut by SHIPPED_TIMEOUT after its first 7 tests:
bash benchmarks_results/s29_scripts/device_s29c.sh
