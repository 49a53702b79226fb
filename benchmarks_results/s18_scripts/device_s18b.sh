# Session 18, device call B (nvidia-h200): calling_conventions.py on CUDA for the module alone (call A's time limits
# ended both of its runs before the module, the last callable), both cache options.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
S=benchmarks_results/s18_scripts
for cache in "constant values" "symbolic values"; do
  timeout 200 python3 $S/calling_conventions.py --device cuda --sequences ${N:-20} --cache "$cache" --only ScaledLinear 2>&1 \
    | grep -v -i warn | tee "$OUT/calling_conventions_cuda_module_${cache%% *}.log"
done
