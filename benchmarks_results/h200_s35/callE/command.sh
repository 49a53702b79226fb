# run tool (nvidia-h200, a fresh machine after one refused start), carry [".device"], 168 s: test_overhead.py whole at
# d321d6f's tests (pytest-xdist, 8 workers), then the new nv_skip_cache test against a one-line mutant (a definition
# looked up per layout in prepare_and_call), which proved equivalent: under nv_skip_cache the region's layout check
# is _AnyLayout, so prepare_and_call never runs after the first call. Call F runs the mutant that changes behaviour.
mkdir -p $OUT && bash benchmarks_results/s35_scripts/device_s35e.sh 2>&1 | tail -30
