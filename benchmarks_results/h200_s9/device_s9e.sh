# Session 9, device call E (nvidia-h200): call D's one failure only with the fast path on, test_networks'
# test_nanogpt_complete_autograd with nvFuser (loss 0.0 instead of 10.97), alone: on, off, on, one after another
# (call D ran both modes at once).
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
for mode in 1 0 1; do
  echo "== THUNDER_FASTPATH=$mode $(date +%T)"
  (cd /tmp && THUNDER_FASTPATH=$mode timeout 100 python3 -m pytest -q -p no:cacheprovider -W ignore -p thunder.fastpath \
    --pyargs thunder.tests.test_networks -k "test_nanogpt_complete_autograd_nvfuser" 2>&1 | grep -E "^E |passed|failed" | head -12)
done 2>&1 | tee "$OUT/nanogpt_autograd.log"
