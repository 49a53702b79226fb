# Session 24: opinfo_differential.py on this CPU at the final code: float32 forward under "constant values" and under
# "symbolic values" (one process each: this VM has two cores), then float32 with --grad.
# Logs: logs/opinfo_cpu_*_final.log (the runs at 1949fee: *_1949fee.log).
cd "$(dirname "$0")/../.."
script=benchmarks_results/s24_scripts/opinfo_differential.py
logs=benchmarks_results/s24_scripts/logs
git log --oneline -1
.venv/bin/python $script > $logs/opinfo_cpu_fwd_float32_final.log 2>&1 &
.venv/bin/python $script --cache "symbolic values" > $logs/opinfo_cpu_fwd_float32_symbolic_final.log 2>&1 &
wait
.venv/bin/python $script --grad > $logs/opinfo_cpu_grad_float32_final.log 2>&1
grep -h -E "^(DIFFERS|SETUP|summary)" $logs/opinfo_cpu_*_final.log
