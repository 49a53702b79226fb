# Session 36, device call A (nvidia-h200): the CUDA tests of four lightning-thunder modules that had never been
# compared with the fast path on and off: test_auto_register_torchops, test_einops, test_triton_ce and
# test_fa3_executor. They do not collect under pytest 9 (`parametrize("device,", ...)`; the first two also import
# einops, which the device image lacks), so this call runs pytest 8.4.2 with einops 0.8.2 from wheels carried in
# .device/p8_whl (`pip download "pytest<9" einops` on the CPU machine). Their CPU tests ran on the CPU machine
# (s36_scripts/cpu_pytest8_suites.sh). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/p8 .device/p8_whl/*.whl
export PYTHONPATH=/tmp/p8:/tmp/extra:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
python3 -c "import pytest, einops; print('pytest', pytest.__version__, '| einops', einops.__version__)" | tee "$OUT/versions.log"
uptime | tee "$OUT/uptime.log"
# On and off at once (compare_shipped_suites' default), each with 6 xdist workers: 12 of the 16 cores.
PYTEST_ADDOPTS="-n 6" SHIPPED_LOGS="$OUT/shipped" PY=$(command -v python3) timeout "${LIMIT:-400}" \
  bash .ci/compare_shipped_suites thunder.tests.test_auto_register_torchops thunder.tests.test_einops \
  thunder.tests.test_triton_ce thunder.tests.test_fa3_executor -k cuda 2>&1 | tee "$OUT/shipped.log"
echo "== exit ${PIPESTATUS[0]}"
uptime | tee -a "$OUT/uptime.log"
