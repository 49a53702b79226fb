# Session 33: the CPU differential searches of earlier sessions at a new seed (33), after the reference-cycle fix
# (which changed what the hit functions reach); the arguments of sessions 30-32. Writes s33_scripts/logs/*seed33*.log.
set -uo pipefail
py=.venv/bin/python
logs=benchmarks_results/s33_scripts/logs
$py benchmarks_results/s11_scripts/fuzz_differential.py 300 33 > $logs/fuzz_differential_300_seed33.log 2>&1 &
$py benchmarks_results/s20_scripts/python_state.py --sequences 60 --seed 33 > $logs/python_state_seed33_constant.log 2>&1
wait
$py benchmarks_results/s18_scripts/calling_conventions.py --sequences 200 --seed 33 > $logs/calling_conventions_seed33_constant.log 2>&1 &
$py benchmarks_results/s19_scripts/training_loops.py --sequences 60 --seed 33 > $logs/training_loops_seed33_constant.log 2>&1
$py benchmarks_results/s19_scripts/training_loops.py --sequences 60 --seed 33 --cache "symbolic values" > $logs/training_loops_seed33_symbolic.log 2>&1
wait
