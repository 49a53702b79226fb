# Session 46, this CPU: the searches that had not run since sessions 38-45 changed the guards (functorch wrappers,
# tied names, autocast, layouts): session 24's OpInfo search in all six of its CPU forms, session 25's transforms
# search, and the probes of sessions 25, 36 and 38. Two processes at a time (this VM has two cores).
# From the checkout's root; writes benchmarks_results/s46_scripts/logs/.
set -uo pipefail
py=.venv/bin/python
b=benchmarks_results
logs=$b/s46_scripts/logs
op=$b/s24_scripts/opinfo_differential.py
git log --oneline -1
run() { local name=$1; shift; local t0=$SECONDS; "$py" "$@" > "$logs/$name.log" 2>&1; echo "$name: exit $?, $((SECONDS - t0)) s"; }
run opinfo_fwd_float32 $op &
run opinfo_fwd_float32_symbolic $op --cache "symbolic values"
wait
run opinfo_grad_float32 $op --grad &
run opinfo_grad_float32_symbolic $op --grad --cache "symbolic values"
wait
run opinfo_fwd_int64 $op --dtype int64 &
run opinfo_fwd_bfloat16 $op --dtype bfloat16
wait
run transforms_differential $b/s25_scripts/transforms_differential.py &
run unusual_values_probe $b/s36_scripts/unusual_values_probe.py
run unusual_arguments_probe $b/s38_scripts/unusual_arguments_probe.py
run unchecked_arguments $b/s25_scripts/unchecked_arguments.py
wait
grep -h -E "^(DIFFERS|SETUP|summary)" $logs/opinfo_*.log
