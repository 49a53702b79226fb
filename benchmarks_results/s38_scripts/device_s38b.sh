# Session 38, device call B (nvidia-h200, warm after call A): lightning-thunder's test_ops on CUDA with nvFuser,
# fast path on against off, never compared on the device (session 32 compared it on the CPU only). test_ops jits most
# samples with cache="no caching", which keeps upstream's cache path, but while the fast path is on their nvFuser
# regions are FusionRegions (nvfuser.py): this compares FusionRegion's calls against upstream's wrapper over the
# OpInfo database. float32 only ($1 overrides the -k expression), both runs at once, 6 xdist workers each (WORKERS
# overrides).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
k=${1:-nvfuser and cuda and float32}
{ sha1sum thunder/fastpath/*.py .ci/compare_shipped_suites; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
python3 -m pytest --pyargs thunder.tests.test_ops --collect-only -q -p no:cacheprovider -W ignore -k "$k" 2>&1 \
  | tail -n 1 | tee "$OUT/collected.log"
rm -f /tmp/report.jsonl
PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT=/tmp/report.jsonl PYTEST_ADDOPTS="-n ${WORKERS:-6} -k '$k'" \
  SHIPPED_LOGS=/tmp/s38b_logs PY=$(command -v python3) timeout 420 taskset -c 2-15 bash .ci/compare_shipped_suites \
  thunder.tests.test_ops 2>&1 | grep -v -i warn | tee "$OUT/compare.log"
echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/compare.log"
python3 .ci/summarize_fastpath_report /tmp/report.jsonl 2>&1 | tee -a "$OUT/compare.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
for m in on off; do tail -n 1 /tmp/s38b_logs/$m.log; cp /tmp/s38b_logs/$m.failed "$OUT/$m.failed" 2>/dev/null; done
tar -C /tmp -czf "$OUT/logs.tar.gz" s38b_logs
