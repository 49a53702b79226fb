# Session 43, device call D (nvidia-h200). Call C's test_overhead run (-n 8) failed one test on upstream's side:
# test_training_hits_connect_to_autograd_like_upstream[twice-cuda-executors2] found upstream's first output alive
# after the caller dropped it. Here: that test's CUDA forms alone, four times in a row, one process each (serial).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
for i in 1 2 3 4; do
  timeout 70 python3 -m pytest -q -p no:cacheprovider -W ignore -rf thunder/tests/test_overhead.py \
    -k "test_training_hits_connect_to_autograd_like_upstream and cuda" 2>&1 | tail -n 3 | tee -a "$OUT/training_lifetimes_rerun.log"
done
