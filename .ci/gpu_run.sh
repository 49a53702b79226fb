#!/usr/bin/env bash
# The project's GPU runs on a CUDA machine (see .ci/README.md): `bash .ci/gpu_run.sh PHASE` from the checkout's root;
# everything is written to $OUT.
#   measure      the benchmarks whose JSON results/h200/ holds (copy the files there), and the training breakdown
#   models       ThunderFX on Hugging Face models (hf_models.py, needs transformers) and training under CUDA graphs
#                (training_steps.py --with-compile --with-graphs): their JSON goes to results/h200/ too
#   tests        all tests, the CUDA variants and those that need nvFuser included ($TESTS_M: pytest -m)
#   shipped      lightning-thunder's test_nvfuser (or $SHIPPED, with $SHIPPED_K as pytest -k) on and off
#   distributed  lightning-thunder's distributed tests ($SHIPPED) on and off: needs two GPUs
set -uo pipefail
OUT=${OUT:-/tmp/gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
B=thunder/benchmarks
quiet() { grep --line-buffered -v -i -e "warn" -e "^W[0-9]"; }
case "${1:-measure}" in
measure)
  python3 $B/small_graph.py --device cuda --repeats 9 --json "$OUT/small_graph.json" 2>&1 | quiet | tee "$OUT/small_graph.log"
  timeout 200 python3 $B/training_steps.py --device cuda --cases llama2_4x64,nanogpt_4x64 --blocks 5 \
    --json "$OUT/training_steps.json" 2>&1 | quiet | tee "$OUT/training_steps.log"
  timeout 150 python3 $B/small_models.py --device cuda --quick --json "$OUT/small_models.json" 2>&1 | quiet \
    | tee "$OUT/small_models.log"
  timeout 60 python3 $B/training_breakdown.py --device cuda --cases train_step 2>&1 | quiet | tee "$OUT/breakdown.log"
  ;;
models)
  timeout 300 python3 $B/hf_models.py --device cuda --quick --json "$OUT/hf_models.json" 2>&1 | quiet \
    | tee "$OUT/hf_models.log"
  timeout 290 python3 $B/training_steps.py --device cuda --cases llama2_4x64,nanogpt_4x64 --blocks 5 --with-compile \
    --with-graphs --json "$OUT/training_steps.json" 2>&1 | quiet | tee "$OUT/training_steps.log"
  ;;
tests)
  python3 -m pytest -q -p no:cacheprovider ${TESTS_M:+-m "$TESTS_M"} thunder/tests 2>&1 | tail -n 30 | tee "$OUT/tests.log"
  ;;
distributed)
  # Workers are spawned processes, which pytest's -p thunder.fastpath does not reach: .ci/fastpath_site's
  # sitecustomize imports the fast path in every process and reports (FASTPATH_REPORT) what each fast callable served.
  shipped=${SHIPPED:-thunder.tests.distributed.test_ddp}
  PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT="$OUT/fastpath_report.jsonl" SHIPPED_LOGS="$OUT/logs" \
    SHIPPED_ONE_AT_A_TIME=1 PY=$(command -v python3) timeout "${SHIPPED_TIMEOUT:-540}" \
    bash .ci/compare_shipped_suites $shipped ${SHIPPED_K:+-k "$SHIPPED_K"} 2>&1 | tee "$OUT/distributed.log"
  python3 .ci/summarize_fastpath_report "$OUT/fastpath_report.jsonl"
  ;;
shipped)
  shipped=${SHIPPED:-thunder.tests.test_nvfuser}
  PY=$(command -v python3) SHIPPED_LOGS="$OUT/logs" timeout "${SHIPPED_TIMEOUT:-540}" \
    bash .ci/compare_shipped_suites $shipped ${SHIPPED_K:+-k "$SHIPPED_K"} 2>&1 | tee "$OUT/shipped.log"
  ;;
esac
