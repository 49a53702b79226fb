# Session 19, device call B (nvidia-h200): the part of device call A that its time limit cut, training_loops.py's
# two_outputs on CUDA under "constant values". Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
timeout 200 python3 benchmarks_results/s19_scripts/training_loops.py --device cuda --sequences ${N:-8} --only two_outputs 2>&1 | grep -v -i warn | tee "$OUT/training_loops_cuda_constant_two_outputs.log"
