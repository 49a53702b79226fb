# Session 34, this CPU: lightning-thunder's shipped suites with the fast path on and off at the code after session
# 33's fix (last run on this CPU in session 29, before it): issue 3's six with test_dynamo, then session 19's
# seventeen modules. From the checkout's root; writes benchmarks_results/s34_scripts/logs/{six_suites_and_dynamo,
# seventeen_suites}.log and each run's logs in the folder of the same name.
set -uo pipefail
logs=benchmarks_results/s34_scripts/logs
t=thunder.tests
SHIPPED_LOGS=$logs/six_suites bash .ci/compare_shipped_suites $t.test_core $t.test_update_aliases $t.test_inplace_copy \
  $t.test_autocast $t.test_transforms $t.test_jit_general $t.test_dynamo > $logs/six_suites_and_dynamo.log 2>&1
echo "exit $?" >> $logs/six_suites_and_dynamo.log
SHIPPED_LOGS=$logs/seventeen bash .ci/compare_shipped_suites $t.test_check_trace $t.test_elementwise $t.test_examine_memory \
  $t.test_interpreter $t.test_reductions $t.test_shape_ops $t.test_torch_compile_executor \
  $t.test_torch_library_custom_op_with_lists $t.test_networks $t.test_randomness $t.test_examine $t.test_pythonex \
  $t.test_extend $t.test_torch_library_custom_op $t.test_einops $t.test_patterns $t.test_dynamo \
  > $logs/seventeen_suites.log 2>&1
echo "exit $?" >> $logs/seventeen_suites.log
