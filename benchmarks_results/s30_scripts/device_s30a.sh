# Session 30, device call A (nvidia-h200): the comparison that session 29's call C left unfinished, and
# test_overhead.py at the current code. On cores 8-15: lightning-thunder's test_networks -k cuda with the fast path
# off only (session 29's call C ran it with the fast path on: 1 failed, 20 passed, h200_s29/callC; its off run was cut
# after 7 tests). On cores 0-7 at the same time: thunder/tests/test_overhead.py whole (the training tests' CUDA
# parameters at 5a67524's NamedTuple refactor, which ran only on the CPU so far). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
mkdir -p "$OUT/test_networks_off"
# The same pytest command as .ci/compare_shipped_suites's "off" run (THUNDER_FASTPATH=0, thunder.fastpath as plugin).
(cd "$OUT/test_networks_off" && THUNDER_FASTPATH=0 timeout 520 taskset -c 8-15 python3 -m pytest -q -rf \
   -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning -p thunder.fastpath \
   --pyargs thunder.tests.test_networks -k cuda > off.log 2>&1;
 grep -E '^FAILED ' off.log | sed 's/ - .*//' | sort -u > off.failed) &
(timeout 520 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py \
  2>&1 | tail -n 30 > "$OUT/test_overhead_cuda.log") &
wait
uptime | tee -a "$OUT/uptime.log"
tail -n 3 "$OUT/test_overhead_cuda.log"; echo "== off"; tail -n 3 "$OUT/test_networks_off/off.log"
cat "$OUT/test_networks_off/off.failed"
