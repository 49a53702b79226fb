# Session 15, device call A (nvidia-h200): executor_call_forms.py on #1657 and RMSNorm 1x2880, pinned to one core
# and not pinned.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
nproc; uptime
taskset -c 5 python3 benchmarks_results/s15_scripts/executor_call_forms.py --cases issue1657,rmsnorm_1x2880 2>&1 | grep -v -i warn | tee "$OUT/call_forms_pinned.log"
python3 benchmarks_results/s15_scripts/executor_call_forms.py --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/call_forms.log"
