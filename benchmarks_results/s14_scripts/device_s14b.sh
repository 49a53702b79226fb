# Session 14, device call B (nvidia-h200): additivity.py on CUDA (#1657, RMSNorm 1x2880) and on the host CPU, then
# small_graph.py's #1657 row with 31 repeats.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
python3 benchmarks_results/s14_scripts/additivity.py --device cuda --cases issue1657,rmsnorm_1x2880 --repeats 21 2>&1 | grep -v -i warn | tee "$OUT/additivity_cuda.log"
python3 benchmarks_results/s14_scripts/additivity.py --device cpu --cases two_8x8,params_1 --repeats 21 2>&1 | grep -v -i warn | tee "$OUT/additivity_host_cpu.log"
python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 --json "$OUT/cuda_issue1657_r31.json" 2>&1 | grep -v -i warn | tee "$OUT/cuda_issue1657_r31.log"
