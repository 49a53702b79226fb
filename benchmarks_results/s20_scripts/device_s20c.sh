# Session 20, device call C (nvidia-h200): test_overhead.py whole on CUDA (with this session's new test), then
# #1657 alone pinned to one core, as session 17's run 2 (h200_s17/run2_pinned_issue1657/command.sh). Carry
# [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 330 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 --json "$OUT/pinned.json" 2>&1 | grep -v -i warn | tee "$OUT/pinned.log"
taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/breakdown_pinned.log"
uptime | tee -a "$OUT/uptime.log"
