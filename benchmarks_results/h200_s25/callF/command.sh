# Session 25, device call F: is call D's device-side assert upstream's? On the CPU, getitem_symbolic.py through
# upstream alone raises IndexError (index out of bounds) at calls 262-264 under --seed 0: hits of entries made for
# other keys. Here: the same on CUDA, upstream alone, under seeds 0 and 1 (a synchronize after each call), and
# opinfo_differential.py's getitem with --control (upstream against upstream, no fast path), CUDA_LAUNCH_BLOCKING=1.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
for seed in 0 1; do
  echo "=== upstream alone, seed $seed" >> "$OUT/getitem_cuda_upstream.log"
  timeout 60 python3 benchmarks_results/s25_scripts/getitem_symbolic.py --device cuda --seed $seed 2>&1 \
    | grep -E "^call|Error" | grep -v AnyProxy | grep -v "^call.*returned" >> "$OUT/getitem_cuda_upstream.log"
done
echo "=== opinfo_differential --control --ops getitem, symbolic values" >> "$OUT/getitem_cuda_upstream.log"
CUDA_LAUNCH_BLOCKING=1 timeout 90 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda \
  --cache "symbolic values" --control --ops getitem 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)|Error" | grep -v IndexKernel \
  | head -20 >> "$OUT/getitem_cuda_upstream.log"
cat "$OUT/getitem_cuda_upstream.log"
