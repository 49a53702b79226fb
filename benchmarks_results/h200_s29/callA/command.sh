# run tool (the device was an NVIDIA H200), carry [".device"], 241 s; the script as it ran (code_sha1.log: the
# runtime code as at da15fb5, unchanged since session 27):
bash benchmarks_results/s29_scripts/device_s29a.sh
