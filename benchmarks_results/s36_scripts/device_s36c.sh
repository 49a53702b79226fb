# Session 36, device call C (nvidia-h200): call A's comparison once more (the CUDA tests of test_auto_register_torchops,
# test_einops, test_triton_ce and test_fa3_executor under pytest 8.4.2, fast path on and off, 6 xdist workers each),
# with gpu_mem_limit_option.py giving the shipped conftest's late --gpu-mem-limit option its default (call A: every
# CUDA test errored at teardown both ways; call B's first version of the plugin declared the option again, which
# the conftest's own declaration then refused: 6 collection errors each way), and with .ci/fastpath_site's report.
# Then #1657 alone twice (31 repeats, pinned to core 5). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/p8 .device/p8_whl/*.whl
base_path=$PYTHONPATH
export PYTHONPATH=/tmp/p8:/tmp/extra:$PWD/benchmarks_results/s36_scripts:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
{ sha1sum thunder/fastpath/*.py benchmarks_results/s36_scripts/gpu_mem_limit_option.py
  python3 -c "import pytest, einops; print('pytest', pytest.__version__, '| einops', einops.__version__)"
  uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
rm -f "$OUT/fastpath_report.jsonl"
PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT="$OUT/fastpath_report.jsonl" \
  PYTEST_ADDOPTS="-n 6 -p gpu_mem_limit_option" SHIPPED_LOGS="$OUT/shipped" PY=$(command -v python3) timeout "${LIMIT:-300}" \
  bash .ci/compare_shipped_suites thunder.tests.test_auto_register_torchops thunder.tests.test_einops \
  thunder.tests.test_triton_ce thunder.tests.test_fa3_executor -k cuda 2>&1 | tee "$OUT/shipped.log"
echo "== exit ${PIPESTATUS[0]}" | tee -a "$OUT/shipped.log"
python3 - "$OUT/fastpath_report.jsonl" <<'PY' 2>&1 | tee -a "$OUT/shipped.log"
import collections, json, sys
try:
    rows = [json.loads(line) for line in open(sys.argv[1])]
except FileNotFoundError:
    rows = []
print("fast callables reported:", len(rows), "| calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows),
      "misses", sum(r["misses"] for r in rows), "| with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
rm -f "$OUT/fastpath_report.jsonl"
uptime | tee -a "$OUT/versions_and_uptime.log"
export PYTHONPATH=$base_path
for i in 1 2; do
  timeout 100 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > "$OUT/issue1657_only_$i.log"
  uptime | tee -a "$OUT/versions_and_uptime.log"
done
grep -h -E "^issue1657 .*(eager|fast|fec|computation)" "$OUT"/issue1657_only_*.log
