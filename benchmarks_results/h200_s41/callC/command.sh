# Session 41, device call C (nvidia-h200, cold). After this session's test changes (anomaly-mode form of the training
# test, the values upstream does not check): (1) test_overhead.py whole (pytest-xdist -n 8 on cores 0-7);
# (2) cuda_streams_graphs_probe.py (hits on a side stream and under CUDA-graph capture, upstream against fast).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
timeout 120 python3 benchmarks_results/s41_scripts/cuda_streams_graphs_probe.py 2>&1 | grep -v -i warn \
  | tee "$OUT/cuda_streams_graphs_probe.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
