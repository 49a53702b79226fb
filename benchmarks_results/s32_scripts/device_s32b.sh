# Session 32, device call B (nvidia-h200): call A's one difference, test_update_aliases' test_parse_resnet18 (torch
# executor, float32, train=True): resnet18_calls.py (fast path off and on in one process, outputs bitwise, each
# one's distance from eager), then the shipped test_parse_resnet18 tests of that executor and dtype (train False and
# True) alone, without xdist, twice in each mode, alternating. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
timeout 330 python3 benchmarks_results/s32_scripts/resnet18_calls.py 2>&1 | grep -v -i warn | tee "$OUT/resnet18_calls.log"
for i in 1 2; do
  for mode in on off; do
    (cd "$OUT" && THUNDER_FASTPATH=$([ "$mode" = on ] && echo 1 || echo 0) timeout 55 python3 -m pytest -q -p no:cacheprovider \
      -W ignore -p thunder.fastpath --pyargs thunder.tests.test_update_aliases -k "test_parse_resnet18_torch_cuda and float32" 2>&1 \
      | tail -n 1 | sed "s/^/run $i, fast path $mode: /" | tee -a "$OUT/test_parse_resnet18_alone.log")
  done
done
