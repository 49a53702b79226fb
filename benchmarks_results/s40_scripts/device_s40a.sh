# Session 40, device call A (nvidia-h200, cold). Runtime code as at 0812c05 (after session 39's guard fix, a5ad751).
# (1) Timing, nothing else running, pinned to core 2: the full CUDA table (small_graph.py), #1657 alone three times
#     (31 repeats, as in sessions 30-39), then hit_breakdown.py's pieces and its cProfile view of a hit for #1657 and
#     RMSNorm 1x2880 (the profile now printed from a second profiled loop: see hit_breakdown.py).
# (2) Then test_overhead.py whole (pytest-xdist -n 4 on cores 0-3).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py thunder/tests/test_overhead.py; nproc; uptime; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 240 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda 2>&1 | grep -v -i warn > "$OUT/cuda_all.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
for i in 1 2 3; do
  timeout 60 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > "$OUT/issue1657_only_$i.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 120 taskset -c 2 python3 thunder/benchmarks/hit_breakdown.py --device cuda --cases issue1657,rmsnorm_1x2880 \
  --number 5000 --repeats 9 --profile 2>&1 | grep -v -i warn > "$OUT/hit_breakdown_profile.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 240 taskset -c 0-3 python3 -m pytest -n 4 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
cat "$OUT/cuda_all.log"
grep -h -E "^issue1657 .*(eager|fast|fec|computation)" "$OUT"/issue1657_only_*.log
head -40 "$OUT/hit_breakdown_profile.log"
tail -n 3 "$OUT/test_overhead.log"
