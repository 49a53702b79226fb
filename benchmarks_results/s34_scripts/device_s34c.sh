# Session 34, device call C (nvidia-h200): a cache hit before and after session 33's reference-cycle fix, on CUDA
# (session 33 timed it on the CPU only, s33_scripts/before_after_fix.sh). small_graph.py (the working tree's) on
# issue1657 and rmsnorm_1x2880, three rounds on one core, each running session 32's thunder/fastpath (02ae19f, carried
# as scratch/old_02ae19f, made with `git archive 02ae19f thunder/fastpath | tar -x -C scratch/old_02ae19f`) and then
# the working tree's, each in its own process. Carry [".device", "scratch/old_02ae19f"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py scratch/old_02ae19f/thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
run() {  # $1: label, $2: a thunder/fastpath folder
  ln -sfn "$2" "$site/fastpath"
  echo "== $1: $(python3 -c 'import thunder.fastpath, os; print(os.path.realpath(thunder.fastpath.__file__))' 2>/dev/null)"
  timeout 120 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,rmsnorm_1x2880 \
    --repeats 21 2>&1 | grep -E "^(issue1657|rmsnorm)" | grep -E " (eager|fast|computation|nvfuser-fec.execute) "
}
for round in 1 2 3; do
  run "round $round, 02ae19f" "$PWD/scratch/old_02ae19f/thunder/fastpath"
  run "round $round, working tree" "$PWD/thunder/fastpath"
done 2>&1 | tee "$OUT/before_after_fix_cuda.log"
uptime | tee -a "$OUT/uptime.log"
