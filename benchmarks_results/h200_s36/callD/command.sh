# run tool (nvidia-h200, a fresh machine after three refused starts), carry [".device"], 250 s of a 278 s limit
# (the session's device time left). test_sdpaex_executor and test_apex_cross_entropy_executor under pytest 8 (on and
# off: the same outcomes); the transformers tests (test_recipes and test_networks) ran out of their 150 s both ways,
# before the end; test_torch_compile_executor's xentropy_loss on and off. logs/ is the tarball shipped_logs.tar.gz
# unpacked.
mkdir -p $OUT && bash benchmarks_results/s36_scripts/device_s36d.sh 2>&1 | grep -v -i warn | tail -30
