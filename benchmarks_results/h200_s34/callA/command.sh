# run tool (nvidia-h200, a fresh machine after one refused start that cost 91 s), carry [".device"], 486 s: the whole
# test_overhead.py at this session's code (with the new test_inputs_and_outputs_are_freed_at_once_like_upstream) on
# cores 0-7, the four test_dynamo tests left unfinished in session 33's call C on and off (cores 8-11 / 12-15), then
# the new test's nvFuser parameter against a mutant whose regions keep their last inputs.
mkdir -p $OUT && LIMIT=440 bash benchmarks_results/s34_scripts/device_s34a.sh 2>&1 | tail -45
