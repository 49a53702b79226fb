# Session 45, device call E (nvidia-h200, the machine of calls C and D): call D's one failure,
# test_training_hits_connect_to_autograd_like_upstream[anomaly_mode-cuda-executors2], found upstream's first output
# still alive after the caller dropped it (the fast path's was released), as session 43's call C did for the
# `twice` form. The 14 CUDA forms of that test alone, four times in a row.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
for run in 1 2 3 4; do
  timeout 80 python3 -m pytest -q -p no:cacheprovider -W ignore -rf thunder/tests/test_overhead.py \
    -k "test_training_hits_connect_to_autograd_like_upstream and cuda" > "$OUT/training_cuda_$run.log" 2>&1
  echo "run $run exit $?: $(tail -n 1 "$OUT/training_cuda_$run.log")"
done
