# Session 28: the fast path under torch releases other than the pinned 2.11.0 (this CPU, Python 3.11), each in its
# own virtual environment with lightning-thunder 0.2.6 and this checkout installed with -e: test_overhead.py, the
# shipped suites compared on and off, session 11's fuzz search (seed 28, 300 examples), small_graph.py --quick.
# Logs: logs/torch_<release>/. (As run: torch 2.10.0's test_dynamo ran separately, after its six suites.)
cd "$(dirname "$0")/../.."
six="thunder.tests.test_core thunder.tests.test_jit_general thunder.tests.test_update_aliases thunder.tests.test_inplace_copy thunder.tests.test_autocast thunder.tests.test_transforms"
for v in 2.10.0 2.12.0 2.9.1; do
  venv=/tmp/torch_$v; log=benchmarks_results/s28_scripts/logs/torch_$v; mkdir -p $log
  python3 -m venv $venv
  $venv/bin/pip install -q torch==$v lightning-thunder==0.2.6 pytest hypothesis expecttest pytest-benchmark
  $venv/bin/pip install -q --no-deps -e .
  $venv/bin/python -m pytest -q -p no:cacheprovider thunder/tests/test_overhead.py 2>&1 | grep -E "^FAILED|passed|failed" > $log/test_overhead.log
  PY=$venv/bin/python bash .ci/compare_shipped_suites $six thunder.tests.test_dynamo > $log/shipped_summary.log 2>&1
  $venv/bin/python benchmarks_results/s11_scripts/fuzz_differential.py 300 28 2>&1 | grep -v -i warn | tail -3 > $log/fuzz_seed28.log
  $venv/bin/python thunder/benchmarks/small_graph.py --quick 2>&1 | grep -v -i warn > $log/small_graph_quick.log
done
