# Session 20, device calls A and B (nvidia-h200): python_state.py on CUDA (nvFuser regions), one callable at a time so that
# a time limit cuts one part, not all. Carry [".device"]; writes to $OUT. Tried here first with DEVICE=cpu (no kit).
# Call A ran it with LIMIT=42 N=5; call B with SEED=2 N=8 LIMIT=65 CACHES=constant.
set -uo pipefail
DEVICE=${DEVICE:-cuda}
if [ "$DEVICE" = cuda ]; then
  source .device/setup.sh >/dev/null 2>&1 || exit 1
  site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
  ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
  python=python3
else
  python=.venv/bin/python
fi
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
names="reads_globals reads_closure reads_config reads_nested reads_defaults ConfiguredModule"
for cache in ${CACHES:-constant symbolic}; do
  cache="$cache values"
  log="$OUT/python_state_${DEVICE}_${cache%% *}_seed${SEED:-0}.log"
  for name in $names; do
    echo "== $name ($cache)" >>"$log"
    timeout ${LIMIT:-40} $python benchmarks_results/s20_scripts/python_state.py --device "$DEVICE" --cache "$cache" \
      --sequences ${N:-6} --seed ${SEED:-0} --only "$name" 2>&1 | grep -v -i warn >>"$log"
    echo "exit ${PIPESTATUS[0]}" >>"$log"
  done
done
tail -n 3 "$OUT"/python_state_*.log
