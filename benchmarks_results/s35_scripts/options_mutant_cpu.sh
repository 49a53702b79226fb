# Session 35, this CPU: test_fusion_region_passes_nvfuser_options_on_every_call_without_a_gpu against the mutant whose
# regions bind no options to nvFuser's executor; applied, run, reverted. From the checkout's root (clean
# thunder/fastpath); writes benchmarks_results/s35_scripts/logs/options_mutant_cpu.log.
set -uo pipefail
log=benchmarks_results/s35_scripts/logs/options_mutant_cpu.log
f=thunder/fastpath/nvfuser.py
cp $f /tmp/nvfuser.py.orig
sed -i 's/        if up.enable_options or up.disable_options:/        if False:/' $f
echo "== mutant: no options bound to the executor ($(diff /tmp/nvfuser.py.orig $f | grep -c '^>') line changed)" > $log
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py \
  -k "passes_nvfuser_options" 2>&1 | grep -E "^E  |passed|failed" | head -n 6 >> $log
cp /tmp/nvfuser.py.orig $f
echo "== unmutated" >> $log
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "passes_nvfuser_options" 2>&1 | tail -n 1 >> $log
