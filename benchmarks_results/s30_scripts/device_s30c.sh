# Session 30, device call C (nvidia-h200): #1657 against fd.fec.execute, the two kinds of run side by side on one
# host. Session 29's full CUDA tables gave fast/fec 1.098 and 1.081 (15 repeats), sessions 27 and 28's #1657-only
# runs 1.13-1.14 (31 repeats), each on another host. Here, pinned to one core: the #1657-only run, the full table,
# and the #1657-only run again, twice. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/benchmarks/small_graph.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
only() {
  timeout 100 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > "$OUT/issue1657_only_$1.log"
  uptime | tee -a "$OUT/uptime.log"
}
only 1
timeout 200 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda 2>&1 | grep -v -i warn > "$OUT/cuda_all.log"
uptime | tee -a "$OUT/uptime.log"
only 2
only 3
grep -h -E "^issue1657 .*(eager|fast|fec)" "$OUT"/issue1657_only_1.log "$OUT"/cuda_all.log "$OUT"/issue1657_only_2.log "$OUT"/issue1657_only_3.log
