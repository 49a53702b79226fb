# Session 9, device call B (nvidia-h200-x2). Call A's test_ddp run (on and off at once) printed one failure each way
# and then nothing until its 390 s limit. First one DDP test alone, fast path off, with its failure report and a
# 90 s limit per test (torch's MultiProcessTestCase default is 300 s); if it passes, a subset of test_ddp, on and off.
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export DISTRIBUTED_TESTS_DEFAULT_TIMEOUT=90
env | grep -E '^(NCCL|TORCH_SYMM|NVSHMEM)' | tee "$OUT/env.txt"
date
(cd /tmp && THUNDER_FASTPATH=0 PYTHONPATH="$OLDPWD/.ci/fastpath_site:$PYTHONPATH" timeout 200 python3 -m pytest -q -rA -p no:cacheprovider -W ignore \
  --pyargs thunder.tests.distributed.test_ddp -k "test_ddp_weight_sharing or test_compile_ddp_module" 2>&1 | tail -n 60 | tee "$OUT/probe.log")
date
if grep -q "1 passed\|2 passed" "$OUT/probe.log"; then
  SHIPPED=thunder.tests.distributed.test_ddp SHIPPED_K="weight_sharing or grad_parity or (no_sync and executor_torch) or test_ddp_compile_module" \
    LOG=test_ddp SHIPPED_TIMEOUT=330 bash .ci/gpu_run.sh distributed
fi
date
