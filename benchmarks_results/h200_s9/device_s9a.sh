# Session 9, device call A (nvidia-h200-x2): the whole test_overhead.py (CUDA tests included) at this commit, then
# lightning-thunder's test_ddp with the fast path on and off (its workers load it through .ci/fastpath_site).
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
git log -1 --format='commit %h %s' 2>/dev/null | tee "$OUT/commit.txt"
nvidia-smi -L | tee "$OUT/gpus.txt"
date
echo "== test_overhead"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
date
SHIPPED=thunder.tests.distributed.test_ddp LOG=test_ddp SHIPPED_TIMEOUT=${DDP_TIMEOUT:-390} bash .ci/gpu_run.sh distributed
date
