# The FusionRegion tests that run without a GPU, against three broken versions of "back to the first layout"
# (session 8); each should fail. Run from the repository root with the venv's python on PATH; restores the file.
set -u
cp thunder/fastpath/nvfuser.py /tmp/nvfuser_orig.py
for m in last_used_not_set first_without_check no_first; do
  cp /tmp/nvfuser_orig.py thunder/fastpath/nvfuser.py
  case $m in
    last_used_not_set) sed -i 's/            self.last_used = up.last_used = first\[3\]/            pass/' thunder/fastpath/nvfuser.py;;
    first_without_check) sed -i 's/        if first is not None and first\[0\].check(\*tensors):/        if first is not None:/' thunder/fastpath/nvfuser.py;;
    no_first) sed -i 's/        if first is not None and first\[0\].check(\*tensors):/        if False:/' thunder/fastpath/nvfuser.py;;
  esac
  echo "== mutant: $m"; python -m pytest -q -p no:cacheprovider thunder/tests/test_overhead.py -k fusion_region 2>&1 | grep -E "^FAILED|passed|failed" | cut -c1-160
done
cp /tmp/nvfuser_orig.py thunder/fastpath/nvfuser.py
echo "== mutant: none"; python -m pytest -q -p no:cacheprovider thunder/tests/test_overhead.py -k fusion_region 2>&1 | tail -n 1
