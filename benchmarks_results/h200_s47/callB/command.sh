# Session 47, device call B (nvidia-h200): guard_in_place.py for #1657 only (call A stopped there on a wrong
# attribute read), on the H200's host.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py; uptime; lscpu | grep -i "model name\|cache"; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 240 taskset -c 2 python3 benchmarks_results/s47_scripts/guard_in_place.py 200 11 cuda --only-1657 2>&1 \
  | grep -v -i "warn" | tee "$OUT/guard_in_place_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
