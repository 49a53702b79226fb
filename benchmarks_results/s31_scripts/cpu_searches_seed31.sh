# Session 31: the CPU differential searches of earlier sessions at a new seed (31), at the current code; the same
# arguments as session 30's runs. Writes benchmarks_results/s31_scripts/logs/*seed31*.log. Run from the checkout.
set -uo pipefail
py=.venv/bin/python
logs=benchmarks_results/s31_scripts/logs
$py benchmarks_results/s11_scripts/fuzz_differential.py 300 31 > $logs/fuzz_differential_300_seed31.log 2>&1 &
$py benchmarks_results/s20_scripts/python_state.py --sequences 60 --seed 31 > $logs/python_state_seed31_constant.log 2>&1
wait
$py benchmarks_results/s18_scripts/calling_conventions.py --sequences 200 --seed 31 > $logs/calling_conventions_seed31_constant.log 2>&1 &
$py benchmarks_results/s19_scripts/training_loops.py --sequences 60 --seed 31 > $logs/training_loops_seed31_constant.log 2>&1
$py benchmarks_results/s19_scripts/training_loops.py --sequences 60 --seed 31 --cache "symbolic values" > $logs/training_loops_seed31_symbolic.log 2>&1
wait
