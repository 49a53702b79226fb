# run tool (nvidia-h200, a fresh machine), carry [".device"], 319 s. The comparison failed to collect (6 errors each
# way): the first version of s36_scripts/gpu_mem_limit_option.py declared --gpu-mem-limit with parser.addoption,
# and the shipped conftest's own declaration then raised "option names {'--gpu-mem-limit'} already added". Its logs
# did not come back (more than 8 files under $OUT). Then device_s30c.sh: #1657 alone, the full CUDA table, #1657
# alone twice more, pinned to core 5.
mkdir -p $OUT && LIMIT=240 bash benchmarks_results/s36_scripts/device_s36b.sh 2>&1 | grep -v -i warn | tail -40
