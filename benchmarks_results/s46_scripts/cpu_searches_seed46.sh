# Session 46, this CPU: session 45's seeded searches (cpu_searches_seed45.sh, without its probes, whose output does
# not depend on a seed and which ran at this runtime code in session 45) at a new seed, 46, with the same arguments;
# and session 11's fuzz_differential.py at seed 46, 600 examples, and 300 with FUZZ_AUTOCAST=1.
# From the checkout's root; writes benchmarks_results/s46_scripts/logs/*seed46*.log.
set -uo pipefail
py=.venv/bin/python
b=benchmarks_results
logs=$b/s46_scripts/logs
git log --oneline -1
run() { local name=$1; shift; local t0=$SECONDS; "$py" "$@" > "$logs/$name.log" 2>&1; echo "$name: exit $?, $((SECONDS - t0)) s"; }
run fuzz_600_seed46 $b/s11_scripts/fuzz_differential.py 600 46 &
( export FUZZ_AUTOCAST=1; run fuzz_autocast_300_seed46 $b/s11_scripts/fuzz_differential.py 300 46 )
wait
run python_state_seed46 $b/s20_scripts/python_state.py --sequences 60 --seed 46 &
run calling_conventions_seed46 $b/s18_scripts/calling_conventions.py --sequences 200 --seed 46
wait
run training_loops_seed46_constant $b/s19_scripts/training_loops.py --sequences 60 --seed 46 &
run training_loops_seed46_symbolic $b/s19_scripts/training_loops.py --sequences 60 --seed 46 --cache "symbolic values"
wait
for f in $logs/*seed46*.log; do echo "== $(basename $f)"; grep -v -i warn "$f" | tail -n 3; done
