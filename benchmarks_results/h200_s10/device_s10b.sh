# Session 10, device call B (nvidia-h200): more rounds of the nanoGPT repeat (call A: 2 processes gave 3 rounds with
# the fast path on and 2 off in 330 s): NANOGPT_PROCESSES processes at once on the one GPU, each alternating the fast
# path and upstream on the same seed per round, with a timestamp per line.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))" 2>/dev/null)
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
n=${NANOGPT_PROCESSES:-4}
date +%T
for p in $(seq 0 $((n - 1))); do
  timeout ${NANOGPT_SECONDS:-530} python3 -u benchmarks_results/s10_scripts/nanogpt_autograd_repeat.py cuda 50 $((2000 + 1000 * p)) 2>&1 \
    | while IFS= read -r line; do echo "$(date +%T) $line"; done > "$OUT/nanogpt_p$p.log" &
done
wait
date +%T
for p in $(seq 0 $((n - 1))); do echo "-- process $p"; grep -E " round|rounds:|Error" "$OUT/nanogpt_p$p.log" | tail -n 40; done
