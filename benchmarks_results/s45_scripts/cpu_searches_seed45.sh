# Session 45: the CPU searches and probes of sessions 17-41 at the current code (sessions 42-44 changed the guards
# and the hit since most of them last ran), the seeded ones at seed 45 with session 33's arguments. Writes
# s45_scripts/logs/*.log; compare the probes' logs with the ones recorded next to their scripts.
set -uo pipefail
py=.venv/bin/python
b=benchmarks_results
logs=$b/s45_scripts/logs
mkdir -p $logs
run() { local name=$1; shift; echo "== $name"; "$py" "$@" > "$logs/$name.log" 2>&1; echo "exit $?"; }
run python_state_seed45 $b/s20_scripts/python_state.py --sequences 60 --seed 45 &
run calling_conventions_seed45 $b/s18_scripts/calling_conventions.py --sequences 200 --seed 45
wait
run training_loops_seed45_constant $b/s19_scripts/training_loops.py --sequences 60 --seed 45 &
run training_loops_seed45_symbolic $b/s19_scripts/training_loops.py --sequences 60 --seed 45 --cache "symbolic values"
wait
run exotic_inputs $b/s17_scripts/exotic_inputs.py &
run contexts_options_modules $b/s17_scripts/contexts_options_modules.py
run module_changes $b/s17_scripts/module_changes.py
wait
for probe in s39_scripts/module_changes_probe s39_scripts/state_and_tensor_kinds_probe s39_scripts/training_loop_probe \
    s40_scripts/checkpoint_compile_probe s40_scripts/func_transforms_probe s40_scripts/inner_module_changes_probe \
    s41_scripts/argument_kinds_probe s41_scripts/autograd_context_probe s41_scripts/module_object_probe \
    s41_scripts/module_state_probe s41_scripts/side_effects_probe s41_scripts/threads_first_calls_probe \
    s41_scripts/transforms_probe; do
  run "$(basename $probe)" $b/$probe.py
done
for probe in s39_scripts/module_changes_probe s40_scripts/inner_module_changes_probe s41_scripts/argument_kinds_probe; do
  run "$(basename $probe)_symbolic" $b/$probe.py "symbolic values"
done
