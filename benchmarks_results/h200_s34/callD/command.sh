# run tool (nvidia-h200, a fresh machine after three refused or skipped starts), carry [".device"], 109 s:
# lightning-thunder's test_nvfuser and test_nvfuser_remat with the fast path on and off at once (.ci/gpu_run.sh shipped).
mkdir -p $OUT && bash benchmarks_results/s34_scripts/device_s34d.sh 2>&1 | grep -v -i warn | tail -20
