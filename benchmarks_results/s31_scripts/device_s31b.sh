# Session 31, device call B (nvidia-h200): the one test of test_grad -k cuda that neither mode finished in call A,
# test_vjp_correctness_sdpa_manual_grad_forward_scaled_dot_product_attention_nvfuser_cuda (bfloat16), alone, with
# the fast path on (cores 0-7) and off (cores 8-15) at once, stopped after LIMIT s. Needs the fdm wheel in
# .device/extra_whl (test_grad imports it). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
export PYTHONPATH=/tmp/extra:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
LIMIT=${LIMIT:-400}
test="test_vjp_correctness_sdpa_manual_grad_forward_scaled_dot_product_attention_nvfuser_cuda and bfloat16"
run() {  # $1: on|off, $2: cores
  start=$(date +%s)
  THUNDER_FASTPATH=$([ "$1" = on ] && echo 1 || echo 0) timeout "$LIMIT" taskset -c "$2" \
     python3 -m pytest -v -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
     -p thunder.fastpath --pyargs thunder.tests.test_grad -k "$test" > "$OUT/$1.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/$1.log"
}
run on 0-7 & run off 8-15 & wait
uptime | tee -a "$OUT/uptime.log"
for m in on off; do echo "$m:"; grep -E "PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR|passed|failed|exit" "$OUT/$m.log"; done
