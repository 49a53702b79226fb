# Session 24: opinfo_differential.py on this CPU at the final code, int64 and bfloat16 (one process each).
# Logs: logs/opinfo_cpu_fwd_{int64,bfloat16}_final.log (the runs at 95694fe: logs/opinfo_fwd_{int64,bfloat16}.log).
cd "$(dirname "$0")/../.."
script=benchmarks_results/s24_scripts/opinfo_differential.py
logs=benchmarks_results/s24_scripts/logs
git log --oneline -1
.venv/bin/python $script --dtype int64 > $logs/opinfo_cpu_fwd_int64_final.log 2>&1 &
.venv/bin/python $script --dtype bfloat16 > $logs/opinfo_cpu_fwd_bfloat16_final.log 2>&1 &
wait
grep -h -E "^(DIFFERS|SETUP|summary)" $logs/opinfo_cpu_fwd_{int64,bfloat16}_final.log
