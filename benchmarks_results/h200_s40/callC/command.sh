# Session 40, device call C (nvidia-h200, warm). Call B found no test_ops test on CUDA with nvFuser for int8 or uint8.
# Save the whole list of nvFuser CUDA test_ops ids (to count them per dtype here), then compare on against off for
# int16 and the complex dtypes where the list holds any.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
python3 -m pytest --pyargs thunder.tests.test_ops --collect-only -q -p no:cacheprovider -W ignore \
  -k "nvfuser and cuda" > "$OUT/nvfuser_cuda_ids.txt" 2>&1
tail -n 1 "$OUT/nvfuser_cuda_ids.txt"
n=$(grep -c -E "(int16|complex)" "$OUT/nvfuser_cuda_ids.txt")
echo "int16 or complex ids: $n"
if [ "$n" -gt 0 ]; then
  WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and (int16 or complex)"
fi
