# Session 30, device call B (nvidia-h200): session 26's opinfo_differential.py --grad search on CUDA (call A of
# session 26: float32, Thunder's default executors, nvFuser included; gradients compared with upstream's after every
# call) again, at the code that session 29's autograd.py changed: every hit of a forward with a backward now connects
# to autograd through it. 14 shards, each stopped after TIMEOUT s (a stopped shard's log keeps the ops it finished).
# Alongside on the remaining cores: session 19's training_loops.py on CUDA (seed 30), its two functions (the module's
# loops were too slow for one call in session 19). Carry [".device"]; writes to $OUT.
# CPU check of this script: DEVICE=cpu TIMEOUT=20 OUT=/tmp/out NO_KIT=1 PY=.venv/bin/python.
set -uo pipefail
[ -n "${NO_KIT:-}" ] || { source .device/setup.sh >/dev/null 2>&1 || exit 1; }
DEVICE=${DEVICE:-cuda}; TIMEOUT=${TIMEOUT:-400}; PY=${PY:-python3}
site=$($PY -c "import thunder, os; print(os.path.dirname(thunder.__file__))" 2>/dev/null)
[ -n "${NO_KIT:-}" ] || ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
N=14
mkdir -p /tmp/shards
for i in $(seq 0 $((N - 1))); do
  timeout $TIMEOUT $PY benchmarks_results/s24_scripts/opinfo_differential.py --device $DEVICE --grad --shard $i/$N \
    > "/tmp/shards/grad_$i.log" 2>&1 &
done
loops=benchmarks_results/s19_scripts/training_loops.py
timeout $TIMEOUT $PY $loops --device $DEVICE --seed 30 --sequences 10 --only affine_tanh,two_outputs 2>&1 \
  | grep -v -i warn > "$OUT/training_loops_cuda_seed30.log" &
wait
for i in $(seq 0 $((N - 1))); do echo "=== shard $i/$N"; grep -v -i warn "/tmp/shards/grad_$i.log"; done \
  > "$OUT/opinfo_${DEVICE}_grad_float32.log"
uptime | tee -a "$OUT/uptime.log"
grep -h -E "^(DIFFERS|SETUP|summary)" "$OUT/opinfo_${DEVICE}_grad_float32.log"
echo "ops done: $(grep -c '^ok ' "$OUT/opinfo_${DEVICE}_grad_float32.log")"
cat "$OUT/training_loops_cuda_seed30.log"
