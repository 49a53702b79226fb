# run tool (the device was an NVIDIA H200), carry [".device"] (with fdm 0.5.0, pytest-xdist 3.8.0 and execnet 2.1.2
# wheels in .device/extra_whl), 537 s; the script as it ran (code_sha1.log: the runtime code as committed in 9da00ea):
LIMIT=470 bash benchmarks_results/s31_scripts/device_s31a.sh
