# Session 31, device call D (nvidia-h200): session 19's training loops for the module (mlp: Linear, Tanh, Dropout,
# Linear, trained with a backward) on CUDA, the first CUDA run of the module's loops since session 29's autograd
# connection (autograd.py). Two seeds at once, each on its own 8 cores, stopped after LIMIT s (the script prints
# its report when a callable's sequences are done). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py benchmarks_results/s19_scripts/training_loops.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
LIMIT=${LIMIT:-400}
N=${N:-10}
loops() {  # $1: seed, $2: cores
  start=$(date +%s)
  timeout "$LIMIT" taskset -c "$2" python3 benchmarks_results/s19_scripts/training_loops.py --device cuda \
    --sequences "$N" --seed "$1" --only mlp 2>&1 | grep -v -i warn > "$OUT/training_loops_cuda_mlp_seed$1.log"
  echo "exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s" >> "$OUT/training_loops_cuda_mlp_seed$1.log"
}
loops 31 0-7 & loops 32 8-15 & wait
uptime | tee -a "$OUT/uptime.log"
tail -n 20 "$OUT"/training_loops_cuda_mlp_seed*.log
