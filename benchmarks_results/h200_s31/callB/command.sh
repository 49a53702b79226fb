# run tool (the device was an NVIDIA H200), carry [".device"] (with the fdm wheel in .device/extra_whl), 78 s; the
# script as it ran (code_sha1.log: the runtime code as committed in 9da00ea). An attempt just before, without the
# script's two lines that install .device/extra_whl, stopped at collection (test_grad imports fdm) and is not kept.
LIMIT=520 bash benchmarks_results/s31_scripts/device_s31b.sh
