# run tool (nvidia-h200, a fresh machine), carry [".device"], 213 s: the CUDA tests of test_auto_register_torchops,
# test_einops, test_triton_ce and test_fa3_executor under pytest 8.4.2 with einops, fast path on and off. Every CUDA
# test errored at teardown both ways (the shipped conftest's late --gpu-mem-limit option: see call C).
mkdir -p $OUT && LIMIT=420 bash benchmarks_results/s36_scripts/device_s36a.sh 2>&1 | tail -30
