# Ran in session 27 at or before cbdedff; the GlobalStateGuard parts need that code (later commits dropped it).
# Session 27: session 11's fuzz_differential.py (shape, dtype, requires_grad, layout, aliasing, numbers, grad mode,
# default dtype) with seed 27 and 300 examples, as it is and with guard.py's GlobalStateGuard removed (the exact state checks on every
# call), two at a time on this 2-core host. Logs: logs/fuzz_*_seed27.log.
cd "$(dirname "$0")/../.."
logs=benchmarks_results/s27_scripts/logs
git log --oneline -1
.venv/bin/python benchmarks_results/s11_scripts/fuzz_differential.py 300 27 > $logs/fuzz_differential_seed27.log 2>&1 &
.venv/bin/python - > $logs/fuzz_no_global_state_guard_seed27.log 2>&1 <<'PY' &
import runpy, sys
import thunder.fastpath.guard
thunder.fastpath.guard.GlobalStateGuard = None
sys.argv = ["fuzz_differential.py", "300", "27"]
runpy.run_path("benchmarks_results/s11_scripts/fuzz_differential.py", run_name="__main__")
print("GlobalStateGuard during the run:", thunder.fastpath.guard.GlobalStateGuard)
PY
wait
for f in $logs/fuzz_*_seed27.log; do echo "== $f"; grep -v -i warn "$f" | tail -n 4; done
