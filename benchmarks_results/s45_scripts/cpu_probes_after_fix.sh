# Session 45: exotic_inputs.py and the probes of sessions 39-41 again, at the layout fix (e98c075): the first run of
# cpu_searches_seed45.sh had them running while guard.py was being edited. Overwrites their logs in s45_scripts/logs.
set -uo pipefail
py=.venv/bin/python
b=benchmarks_results
logs=$b/s45_scripts/logs
run() { local name=$1; shift; echo "== $name"; "$py" "$@" > "$logs/$name.log" 2>&1; echo "exit $?"; }
run exotic_inputs $b/s17_scripts/exotic_inputs.py &
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
wait
