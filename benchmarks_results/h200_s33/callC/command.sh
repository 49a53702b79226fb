# run tool (nvidia-h200, a fresh machine), carry [".device"], 485 s (held 1,474 s in all with calls A and B): session
# 32's script on the tests that require CUDA without "cuda" in their names (so no -k cuda run had selected them),
# listed from the shipped modules' @requiresCUDA / skipif marks in s33_scripts/cuda_only_tests.k; the machine's
# .hypothesis folders were removed before the files came back. The fast path's run was stopped at 420 s with 4 tests
# unfinished. both.txt missed a few lines: join warned that outcomes.txt was not sorted in its collation.
mkdir -p $OUT && LIMIT=420 K="$(cat benchmarks_results/s33_scripts/cuda_only_tests.k)" MODULES="thunder.tests.test_core thunder.tests.test_dynamo thunder.tests.test_examine_memory thunder.tests.test_jit_general thunder.tests.test_networks thunder.tests.test_torch_compile_executor thunder.tests.test_transforms thunder.tests.test_autocast thunder.tests.test_update_aliases thunder.tests.test_nvfuser_remat thunder.tests.test_grad" bash benchmarks_results/s32_scripts/device_s32a.sh 2>&1 | tail -30; rm -rf $OUT/on/.hypothesis $OUT/off/.hypothesis
