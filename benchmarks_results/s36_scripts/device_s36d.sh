# Session 36, device call D (nvidia-h200), shipped modules never compared on the H200, fast path on and off, each
# comparison with .ci/fastpath_site's report:
# (1) test_sdpaex_executor (14 CUDA tests, among them SDPA under autocast) and test_apex_cross_entropy_executor: like
#     the four modules of call C they parametrize "device," and collect only under pytest 8 (.device/p8_whl, with
#     gpu_mem_limit_option.py as in call C);
# (2) the tests that use Hugging Face transformers, which the device image lacks (4.57.6 and its dependencies from
#     .device/hf_whl: `pip download --python-version 3.12 --only-binary=:all: "transformers==4.57.6"` on the CPU
#     machine, less numpy, filelock, fsspec, packaging, typing_extensions): test_recipes (most of it needs nvFuser)
#     and test_networks whole, and test_torch_compile_executor's xentropy_loss, under the image's pytest.
# Logs: one tarball (the device tool returns at most 8 files). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/p8 .device/p8_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/hf .device/hf_whl/*.whl
base_path=$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
logs=/tmp/s36d_logs; rm -rf $logs; mkdir -p $logs
{ sha1sum thunder/fastpath/*.py .ci/compare_shipped_suites; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
compare() {  # $1: name, $2: PYTHONPATH to add, $3: PYTEST_ADDOPTS, $4: timeout, rest: modules and pytest arguments
  local name=$1 path=$2 addopts=$3 limit=$4; shift 4
  rm -f /tmp/report.jsonl
  echo "== $name: $*" | tee -a "$OUT/shipped.log"
  PYTHONPATH="$PWD/.ci/fastpath_site:$path:$base_path" FASTPATH_REPORT=/tmp/report.jsonl PYTEST_ADDOPTS="$addopts" \
    SHIPPED_LOGS="$logs/$name" PY=$(command -v python3) timeout "$limit" bash .ci/compare_shipped_suites "$@" 2>&1 \
    | grep -v -i warn | tee -a "$OUT/shipped.log"
  echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/shipped.log"
  python3 - /tmp/report.jsonl <<'PY' 2>&1 | tee -a "$OUT/shipped.log"
import collections, json, sys
try:
    rows = [json.loads(line) for line in open(sys.argv[1])]
except FileNotFoundError:
    rows = []
print("fast callables reported:", len(rows), "| calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows),
      "misses", sum(r["misses"] for r in rows), "| with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
}
compare sdpaex "/tmp/p8:/tmp/extra:$PWD/benchmarks_results/s36_scripts" "-p gpu_mem_limit_option" 90 \
  thunder.tests.test_sdpaex_executor thunder.tests.test_apex_cross_entropy_executor
python3 -c "import sys; sys.path.insert(0, '/tmp/hf'); import transformers; print('transformers', transformers.__version__)" 2>&1 | tail -1 | tee -a "$OUT/shipped.log"
compare hf "/tmp/hf:/tmp/extra" "-n 6" 150 thunder.tests.test_recipes thunder.tests.test_networks
compare hf_xentropy "/tmp/hf:/tmp/extra" "" 40 thunder.tests.test_torch_compile_executor -k xentropy_loss
uptime | tee -a "$OUT/versions_and_uptime.log"
tar -C /tmp -czf "$OUT/shipped_logs.tar.gz" s36d_logs
