# Session 10, device call A (nvidia-h200): the CUDA tests of test_overhead.py at this commit (after the
# _entry_layout reordering), then session 9's unexplained nanoGPT failure: two processes at once on the one GPU (as
# call D of session 9 ran), each alternating the fast path and upstream on the same seed per round.
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
git log -1 --format='commit %h %s' 2>/dev/null | tee "$OUT/commit.txt"
nvidia-smi -L | tee "$OUT/gpus.txt"
date +%T
echo "== test_overhead (CUDA and region tests)"
timeout 170 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "nvfuser or Region or fusion or cuda" 2>&1 | tail -n 15 | tee "$OUT/test_overhead_cuda.log"
date +%T
echo "== nanoGPT repeat, two processes at once"
left=$(( ${NANOGPT_SECONDS:-330} ))
timeout $left python3 benchmarks_results/s10_scripts/nanogpt_autograd_repeat.py cuda 50 0 > "$OUT/nanogpt_p0.log" 2>&1 &
timeout $left python3 benchmarks_results/s10_scripts/nanogpt_autograd_repeat.py cuda 50 1000 > "$OUT/nanogpt_p1.log" 2>&1 &
wait
date +%T
for p in 0 1; do echo "-- process $p"; grep -E "^round|rounds:|Error|error" "$OUT/nanogpt_p$p.log" | tail -n 40; done
