# Session 35, device call B (nvidia-h200): lifetime_mutants.sh on the two lifetime tests' CUDA parameters (torch
# executor and nvFuser), at c3aa883's test code. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
: > "$OUT/lifetime_mutants_cuda.log"
PY=python3 K=cuda LOG="$OUT/lifetime_mutants_cuda.log" timeout 400 bash benchmarks_results/s35_scripts/lifetime_mutants.sh
cat "$OUT/lifetime_mutants_cuda.log"
