# Session 36, this CPU: lightning-thunder's tests that use Hugging Face transformers, which requirements/ leaves out
# (earlier runs saw them fail or skip on the import), fast path on against off: test_networks and test_recipes whole
# (most of test_recipes needs nvFuser and skips here), and the one such test in each of test_jit_general,
# test_interpreter and test_torch_compile_executor. transformers 4.57.6 ("transformers<5": lightning-thunder 0.2.6
# predates transformers 5) goes to /tmp/hfsite4 with its dependencies, less those the venv has (numpy and others).
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=benchmarks_results/s36_scripts/logs
if [ ! -d /tmp/hfsite4/transformers ]; then
  .venv/bin/pip install -q --target /tmp/hfsite4 "transformers==4.57.6"
  (cd /tmp/hfsite4 && rm -rf filelock filelock-*.dist-info fsspec fsspec-*.dist-info numpy numpy.libs numpy-*.dist-info \
     packaging packaging-*.dist-info pygments pygments-*.dist-info typing_extensions.py typing_extensions-*.dist-info)
fi
export PYTHONPATH=/tmp/hfsite4
.venv/bin/python -c "import transformers; print('transformers', transformers.__version__)" > "$logs/transformers_suites.log"
SHIPPED_LOGS=/tmp/s36_hf_a bash .ci/compare_shipped_suites thunder.tests.test_networks thunder.tests.test_recipes >> "$logs/transformers_suites.log" 2>&1
echo "exit $?" >> "$logs/transformers_suites.log"
SHIPPED_LOGS=/tmp/s36_hf_b bash .ci/compare_shipped_suites thunder.tests.test_jit_general thunder.tests.test_interpreter \
  thunder.tests.test_torch_compile_executor -k "specific_dataclass_returns or transformer_model_output or xentropy_loss" \
  >> "$logs/transformers_suites.log" 2>&1
echo "exit $?" >> "$logs/transformers_suites.log"
for part in a b; do for mode in on off; do cp /tmp/s36_hf_$part/$mode.log "$logs/transformers_suites_${part}_$mode.log"; done; done
