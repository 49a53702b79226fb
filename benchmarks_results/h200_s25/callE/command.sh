# Session 25, device call E: call D's getitem (symbolic values) raised a device-side assert on CUDA, which stopped
# the rest of its shard. getitem_symbolic.py through upstream alone and through the fast path alone (each in its own
# process, a synchronize after each call); then the seven ops that the assert cut off in call D's shard 3, in a fresh
# process. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
for side in upstream fast; do
  flag=$([ $side = fast ] && echo --fast || true)
  echo "=== $side" >> "$OUT/getitem_symbolic_cuda.log"
  timeout 80 python3 benchmarks_results/s25_scripts/getitem_symbolic.py --device cuda $flag 2>&1 \
    | grep -E "^call" | grep -v AnyProxy >> "$OUT/getitem_symbolic_cuda.log"
done
grep -E "^===|Accelerator" "$OUT/getitem_symbolic_cuda.log"
timeout 120 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --cache "symbolic values" \
  --ops squeeze_torch,take_along_axis,mean,arange,normalize,avg_pool3d,log_softmax 2>&1 \
  | grep -E "^(ok|DIFF|SETUP|summ)" | tee "$OUT/opinfo_cuda_symbolic_rest_of_shard3.log"
