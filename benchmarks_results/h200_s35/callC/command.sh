# run tool (nvidia-h200, a fresh machine after one refused start), carry [".device"], 145 s: test_overhead.py whole
# with the two new nvFuser tests (pytest-xdist, 8 workers), then each new test against its mutant of nvfuser.py. The
# mutants' output keeps five lines per run: for the options mutant, those of the CPU test's failure (call D runs
# the GPU test alone on it).
mkdir -p $OUT && bash benchmarks_results/s35_scripts/device_s35c.sh 2>&1 | tail -30
