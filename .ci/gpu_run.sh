#!/usr/bin/env bash
# GPU measurements and tests, for the `device` tool of this workplace (see CONTRIBUTING.md). Expects the
# device kit: run as `source .device/setup.sh && bash .ci/gpu_run.sh PHASE` with carry [".device"], PHASE being
# `measure` (CUDA tests and the benchmark), `breakdown` (hit_breakdown.py on CUDA and on the host CPU), `shipped`
# (lightning-thunder's test_nvfuser, or $SHIPPED, on/off) or `distributed` (lightning-thunder's distributed tests,
# $SHIPPED, on/off: needs two GPUs, the kind nvidia-h200-x2); writes to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/gpu_out}; mkdir -p "$OUT"
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"   # the working tree's thunder.fastpath inside the device's thunder
export PYTHONUNBUFFERED=1
if [ "${1:-measure}" = measure ]; then
echo "== test_overhead (CUDA tests included)"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
echo "== benchmark"
python3 thunder/benchmarks/small_graph.py --device cuda --json "$OUT/cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/cuda.log"
python3 thunder/benchmarks/small_graph.py --device cpu --quick --cases two_8x8,params_1 --json "$OUT/cpu_host.json" 2>&1 | grep -v -i warn | tee "$OUT/cpu_host.log"
echo "== breakdown"
python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/breakdown_cuda.log"
python3 thunder/benchmarks/hit_breakdown.py --device cpu --number 5000 --repeats 9 --cases two_8x8,params_1 2>&1 | grep -v -i warn | tee "$OUT/breakdown_cpu.log"
# The guard's growth with the number of tensor inputs and parameters (its "guard" rows).
python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 1000 --repeats 7 --cases inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn | tee "$OUT/breakdown_scaling.log"
elif [ "$1" = distributed ]; then
# Workers are spawned processes, which pytest's -p thunder.fastpath does not reach: .ci/fastpath_site's
# sitecustomize imports the fast path in every process and reports (FASTPATH_REPORT) what each fast callable served.
shipped=${SHIPPED:-thunder.tests.distributed.test_ddp}
echo "== lightning-thunder's $shipped ${SHIPPED_K:+(-k $SHIPPED_K)}, fast path on and off, $(nvidia-smi -L | wc -l) GPUs"
rm -f "$OUT/fastpath_report.jsonl"
PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT="$OUT/fastpath_report.jsonl" SHIPPED_LOGS="$OUT/${LOG:-distributed}" \
  PY=$(command -v python3) timeout "${SHIPPED_TIMEOUT:-540}" bash .ci/compare_shipped_suites $shipped ${SHIPPED_K:+-k "$SHIPPED_K"} 2>&1 | tee "$OUT/${LOG:-distributed}.log"
python3 .ci/summarize_fastpath_report "$OUT/fastpath_report.jsonl"
elif [ "$1" = breakdown ]; then
python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657,rmsnorm_1x2880 2>&1 | grep -v -i warn | tee "$OUT/breakdown_cuda.log"
python3 thunder/benchmarks/hit_breakdown.py --device cpu --number 5000 --repeats 9 --cases two_8x8,params_1,inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn | tee "$OUT/breakdown_cpu.log"
else
# SHIPPED: the modules to compare (default test_nvfuser); SHIPPED_K: a pytest -k expression; LOG: the log's
# name under $OUT. E.g. SHIPPED=thunder.tests.test_update_aliases SHIPPED_K="cuda and not resnet18".
shipped=${SHIPPED:-thunder.tests.test_nvfuser}
echo "== lightning-thunder's $shipped ${SHIPPED_K:+(-k $SHIPPED_K)}, fast path on and off"
PY=$(command -v python3) timeout "${SHIPPED_TIMEOUT:-540}" bash .ci/compare_shipped_suites $shipped ${SHIPPED_K:+-k "$SHIPPED_K"} 2>&1 | tee "$OUT/${LOG:-test_nvfuser.log}"
fi
