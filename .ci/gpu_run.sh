#!/usr/bin/env bash
# The GPU runs (.ci/README.md): `bash .ci/gpu_run.sh PHASE` from the checkout's root, with Thunder with the stack first
# on PYTHONPATH and main without it in .thunder-unpatched/ (`tools/stack.py install --base main --target
# .thunder-patched`, then `export PYTHONPATH=$PWD/.thunder-patched:$PYTHONPATH`); everything is written to $OUT.
#   tests     the stack's tests, their CUDA and nvFuser variants included
#   measure   small_graph.py on CUDA against main (results/h100/small_graph.json)
#   prs       the gain of the pull requests measured on CUDA (tools/measure_prs.py, results/prs/cuda/)
#   shipped   Thunder's test_nvfuser with the stack and without it ($SHIPPED, $SHIPPED_K: other modules, pytest -k)
#   thunderfx the stack's tests in test_dynamo (the tiny Llama among them), hf_models.py and thunderfx_breakdown.py
set -uo pipefail
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
quiet() { grep --line-buffered -v -i -e "warn" -e "^W[0-9]"; }
case "${1:-measure}" in
tests)
  python3 -m pytest -q -p no:cacheprovider -rfE ${TESTS_K:+-k "$TESTS_K"} thunder/tests 2>&1 | tail -n 40 | tee "$OUT/tests.log"
  ;;
measure)
  python3 thunder/benchmarks/small_graph.py --device cuda --main .thunder-unpatched --repeats "${REPEATS:-9}" \
    ${CASES:+--cases "$CASES"} --json "$OUT/small_graph.json" 2>&1 | quiet | tee "$OUT/small_graph.log"
  ;;
prs)
  python3 tools/measure_prs.py --device cuda --prs 05 --unpatched .thunder-unpatched --repeats "${REPEATS:-7}" 2>&1 \
    | quiet | tee "$OUT/prs.log"
  cp results/prs/cuda/*.json "$OUT/"
  ;;
thunderfx)
  python3 -m pytest -q -p no:cacheprovider -rfE --pyargs thunder.tests.test_dynamo \
    -k "cat_onto_empty_start or tiny_llama or addmm_is_not_split" 2>&1 | tail -n 20 | tee "$OUT/thunderfx_tests.log"
  (cd thunder/benchmarks && python3 hf_models.py --device cuda --repeats "${REPEATS:-7}" --json "$OUT/hf_models.json" \
    2>&1 | quiet | tee "$OUT/hf_models.log")
  (cd thunder/benchmarks && python3 thunderfx_breakdown.py --device cuda --repeats "${REPEATS:-7}" \
    --json "$OUT/thunderfx_breakdown.json" 2>&1 | quiet | tee "$OUT/thunderfx_breakdown.log")
  ;;
shipped)
  SHIPPED_WITH_ENV="PYTHONPATH=$PWD/.thunder-patched:${PYTHONPATH:-}" \
    SHIPPED_WITHOUT_ENV="PYTHONPATH=$PWD/.thunder-unpatched:${PYTHONPATH:-}" SHIPPED_LOGS="$OUT/logs" \
    SHIPPED_ONE_AT_A_TIME=1 PY=$(command -v python3) timeout "${SHIPPED_TIMEOUT:-540}" \
    bash .ci/compare_shipped_suites "${SHIPPED:-thunder.tests.test_nvfuser}" ${SHIPPED_K:+-k "$SHIPPED_K"} 2>&1 \
    | tee "$OUT/shipped.log"
  ;;
esac
