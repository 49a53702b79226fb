# Session 19, device call C (nvidia-h200): more of training_loops.py on CUDA (nvFuser regions), "constant values",
# seed 2. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
for kind in mlp affine_tanh two_outputs; do
  timeout 160 python3 benchmarks_results/s19_scripts/training_loops.py --device cuda --sequences ${N:-14} --seed 2 --only $kind 2>&1 | grep -v -i warn | tee "$OUT/training_loops_cuda_constant_seed2_$kind.log"
done
