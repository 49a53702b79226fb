# Session 46, device call D (nvidia-h200): session 11's differential search with its tensors on CUDA (nvFuser
# regions; session 13's fuzz_differential_cuda.py) at new seeds, 46 and 47, 60 examples each, with and without
# FUZZ_AUTOCAST=1 (session 45), four processes at once on four cores each. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py benchmarks_results/s11_scripts/fuzz_differential.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
fuzz=benchmarks_results/s13_scripts/fuzz_differential_cuda.py
cores=(0-3 4-7 8-11 12-15); i=0
for seed in 46 47; do
  for autocast in 0 1; do
    name=fuzz_cuda_seed${seed}$([ $autocast = 1 ] && echo _autocast)
    ( if [ $autocast = 1 ]; then export FUZZ_AUTOCAST=1; fi
      timeout 240 taskset -c ${cores[$i]} python3 $fuzz 60 $seed cuda 2>&1 | grep -v -i warn > "$OUT/$name.log"
      echo "$name exit ${PIPESTATUS[0]}" ) &
    i=$((i + 1))
  done
done
wait
uptime | tee -a "$OUT/versions_and_uptime.log"
for f in "$OUT"/fuzz_*.log; do echo "== $(basename $f)"; grep -E "failed|examples,|FusionRegions made|Falsifying" "$f" | tail -n 4; tail -n 1 "$f"; done
