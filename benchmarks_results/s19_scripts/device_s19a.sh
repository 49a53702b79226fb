# Session 19, device call A (nvidia-h200): test_overhead.py whole at the current code; training_loops.py on CUDA
# (nvFuser regions) under both cache options; symbolic_regions.py. Run as `bash benchmarks_results/s19_scripts/device_s19a.sh`
# with carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
S=benchmarks_results/s19_scripts
uptime | tee "$OUT/uptime.log"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
timeout 60 python3 $S/symbolic_regions.py 2>&1 | grep -v -i warn | tee "$OUT/symbolic_regions.log"
timeout 150 python3 $S/training_loops.py --device cuda --sequences ${N:-8} 2>&1 | grep -v -i warn | tee "$OUT/training_loops_cuda_constant.log"
timeout 120 python3 $S/training_loops.py --device cuda --sequences ${N:-8} --cache "symbolic values" --seed 1 --only affine_tanh,two_outputs 2>&1 | grep -v -i warn | tee "$OUT/training_loops_cuda_symbolic.log"
uptime | tee -a "$OUT/uptime.log"
