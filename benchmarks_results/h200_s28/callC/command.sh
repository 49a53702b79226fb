# run tool (the device was an NVIDIA H200), carry [".device"], 264 s; the script as it ran (commit.log shows the
# device copy's git HEAD, d755b72; thunder/ and the test file are the same from efdd30d to this session's commits):
bash benchmarks_results/s28_scripts/device_s28c.sh
