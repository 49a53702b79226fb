# Session 36, device call B (nvidia-h200): (1) call A's comparison again (the CUDA tests of test_auto_register_torchops,
# test_einops, test_triton_ce and test_fa3_executor under pytest 8.4.2, fast path on and off), now with
# gpu_mem_limit_option.py (its first version, since replaced: see call C) declaring the --gpu-mem-limit option
# that the shipped conftest reads in every CUDA test's teardown (call A: every CUDA test errored there, both
# ways), and with .ci/fastpath_site's report of what the fast callables served; which pytest the image has, and
# whether it declares that option. (2) Session 30's #1657 runs and full CUDA table (device_s30c.sh), pinned to
# core 5, nothing else running. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pytest --version 2>&1 | tail -1 | tee "$OUT/versions.log"
(cd /tmp && python3 -m pytest --help 2>/dev/null | grep -c -- "--gpu-mem-limit" | sed 's/^/image pytest declares --gpu-mem-limit: /') | tee -a "$OUT/versions.log"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/p8 .device/p8_whl/*.whl
base_path=$PYTHONPATH
export PYTHONPATH=/tmp/p8:/tmp/extra:$PWD/benchmarks_results/s36_scripts:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
python3 -c "import pytest, einops; print('pytest', pytest.__version__, '| einops', einops.__version__)" | tee -a "$OUT/versions.log"
uptime | tee "$OUT/shipped_uptime.log"
rm -f "$OUT/fastpath_report.jsonl"
PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT="$OUT/fastpath_report.jsonl" \
  PYTEST_ADDOPTS="-n 6 -p gpu_mem_limit_option" SHIPPED_LOGS="$OUT/shipped" PY=$(command -v python3) timeout "${LIMIT:-240}" \
  bash .ci/compare_shipped_suites thunder.tests.test_auto_register_torchops thunder.tests.test_einops \
  thunder.tests.test_triton_ce thunder.tests.test_fa3_executor -k cuda 2>&1 | tee "$OUT/shipped.log"
echo "== exit ${PIPESTATUS[0]}"
python3 - "$OUT/fastpath_report.jsonl" <<'PY'
import collections, json, sys
try:
    rows = [json.loads(line) for line in open(sys.argv[1])]
except FileNotFoundError:
    rows = []
print("fast callables reported:", len(rows), "| calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows),
      "misses", sum(r["misses"] for r in rows), "| with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
uptime | tee -a "$OUT/shipped_uptime.log"
export PYTHONPATH=$base_path
bash benchmarks_results/s30_scripts/device_s30c.sh
