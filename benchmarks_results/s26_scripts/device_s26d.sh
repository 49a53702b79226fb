# Session 26, device call D: opinfo_differential.py --grad on grad_forward_scaled_dot_product_attention, six times
# with the fast path and six times upstream against upstream (--control), all twelve at once. Run i of each kind
# seeds Python's `random` with i (the op's sample generator draws sizes from it), so both kinds see the same samples.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
script=benchmarks_results/s24_scripts/opinfo_differential.py
mkdir -p /tmp/sdpa
for i in 0 1 2 3 4 5; do
  for extra in "" --control; do
    timeout 120 python3 -c "import random, runpy, sys; random.seed($i); sys.argv = ['$script', '--device', 'cuda', \
'--grad', '--ops', 'grad_forward_scaled_dot_product_attention', *'$extra'.split()]; \
runpy.run_path('$script', run_name='__main__')" > "/tmp/sdpa/seed${i}${extra}.log" 2>&1 &
  done
done
wait
for f in /tmp/sdpa/*.log; do echo "=== $(basename $f .log)"; grep -E "^(ok|DIFFERS|SETUP)" "$f"; done \
  | tee "$OUT/sdpa_grad_seeded.log"
