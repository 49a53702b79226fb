# Session 18, device call A (nvidia-h200): calling_conventions.py on CUDA (nvFuser regions), both cache options.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
S=benchmarks_results/s18_scripts
uptime | tee "$OUT/uptime.log"
timeout 280 python3 $S/calling_conventions.py --device cuda --sequences ${N:-20} 2>&1 | grep -v -i warn | tee "$OUT/calling_conventions_cuda_constant.log"
timeout 250 python3 $S/calling_conventions.py --device cuda --sequences ${N:-20} --cache "symbolic values" --seed 1 2>&1 | grep -v -i warn | tee "$OUT/calling_conventions_cuda_symbolic.log"
uptime | tee -a "$OUT/uptime.log"
