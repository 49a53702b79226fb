# run tool (nvidia-h200, a fresh machine after one refused start), carry [".device"], 131 s: lifetime_mutants.sh on
# the two lifetime tests' CUDA parameters (torch executor, nvFuser) at c3aa883's test code. The script keeps the
# first four lines of each run's output: for mutants 1-4 these are the two parameters' assertion failures, and the
# summary line ("2 failed") was cut off.
mkdir -p $OUT && bash benchmarks_results/s35_scripts/device_s35b.sh 2>&1 | tail -40
