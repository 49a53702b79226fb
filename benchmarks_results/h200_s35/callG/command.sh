# run tool (nvidia-h200, a fresh machine), carry [".device"], 69 s: after the final read's refactor of the new
# nvFuser tests, those tests again and the options test against its mutant.
mkdir -p $OUT && bash benchmarks_results/s35_scripts/device_s35g.sh 2>&1 | tail -20
