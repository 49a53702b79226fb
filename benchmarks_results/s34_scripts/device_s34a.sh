# Session 34, device call A (nvidia-h200): test_overhead.py whole at the current code (its CUDA tests last ran whole
# on the H200 in session 30, before session 33's fix of the reference cycles), on cores 0-7; at the same time the four
# test_dynamo tests that session 33's call C left unfinished with the fast path on, on (cores 8-11) and off
# (cores 12-15), each with its --durations so that the two runs' times can be compared. Carry [".device"]; writes
# to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
export PYTHONPATH=/tmp/extra:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
rootdir=$(dirname "$site")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
K="test_reports_repro or test_spliter_einops or test_thunder_specific_reports or (test_thundercompiler_optim_step and cpu and adam and not adamw)"
dynamo() {  # $1: on|off, $2: cores
  mkdir -p "$OUT/$1"
  (cd "$OUT/$1" && THUNDER_FASTPATH=$([ "$1" = on ] && echo 1 || echo 0) timeout "${LIMIT:-500}" taskset -c "$2" \
     python3 -m pytest -n 4 -v -rf --durations=0 -p no:cacheprovider -W ignore \
     -W error::thunder.fastpath.cache_hit.GuardBuildWarning --rootdir "$rootdir" -p thunder.fastpath \
     --pyargs thunder.tests.test_dynamo -k "$K" > "$1.log" 2>&1)
  grep -E "^\[gw[0-9]+\]" "$OUT/$1/$1.log" | grep -oE "(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR) [^ ]*::[^ ]+" \
    | awk '{print $2, $1}' | LC_ALL=C sort > "$OUT/$1/outcomes.txt"
}
(timeout "${LIMIT:-500}" taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore -rfs \
   thunder/tests/test_overhead.py > "$OUT/test_overhead_cuda.log" 2>&1) &
dynamo on 8-11 & dynamo off 12-15 & wait
uptime | tee -a "$OUT/uptime.log"
echo "== test_overhead"; tail -n 4 "$OUT/test_overhead_cuda.log"
for m in on off; do echo "== dynamo $m: $(wc -l < "$OUT/$m/outcomes.txt") tests finished; $(tail -n 1 "$OUT/$m/$m.log")"
  cat "$OUT/$m/outcomes.txt"; grep -E "^[0-9.]+s call" "$OUT/$m/$m.log" | head -n 6; done
rm -rf "$OUT"/on/.hypothesis "$OUT"/off/.hypothesis
# Mutation check of the new test_inputs_and_outputs_are_freed_at_once_like_upstream on nvFuser: regions that keep
# their last inputs (every `if self.store_inputs:` made true) must fail it; the file is restored afterwards.
cp thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig
sed -i 's/if self\.store_inputs:/if True:/' thunder/fastpath/nvfuser.py
echo "== mutant (regions keep their last inputs): $(grep -c 'if True:' thunder/fastpath/nvfuser.py) lines changed"
timeout 100 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "freed_at_once and executors2" \
  2>&1 | grep -E "^E |passed|failed" | head -n 4 | tee "$OUT/mutant_keep_inputs.log"
cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py
