# Session 26: the earlier sessions' differential searches again on this CPU, at this session's code, with seed 26
# (two at a time on this 2-core host). Logs: logs/*_seed26.log.
cd "$(dirname "$0")/../.."
logs=benchmarks_results/s26_scripts/logs
git log --oneline -1
(.venv/bin/python benchmarks_results/s11_scripts/fuzz_differential.py 40 26 > $logs/fuzz_differential_seed26.log 2>&1;
 .venv/bin/python benchmarks_results/s20_scripts/python_state.py --sequences 20 --seed 26 > $logs/python_state_seed26.log 2>&1) &
(.venv/bin/python benchmarks_results/s18_scripts/calling_conventions.py --sequences 30 --seed 26 > $logs/calling_conventions_seed26.log 2>&1;
 .venv/bin/python benchmarks_results/s18_scripts/calling_conventions.py --sequences 30 --seed 26 --cache "symbolic values" \
   > $logs/calling_conventions_symbolic_seed26.log 2>&1) &
wait
for f in $logs/*_seed26.log; do echo "== $f"; grep -v -i warn "$f" | tail -n 4; done
