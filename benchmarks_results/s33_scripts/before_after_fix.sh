# Session 33, this CPU: a hit before and after the reference-cycle fix. small_graph.py (the working tree's) on
# two_8x8, params_1 and train_step, three rounds, each round running session 32's thunder/fastpath (02ae19f, from a
# worktree, through the editable install's MAPPING) and then the working tree's, each in its own process.
# From the checkout's root; writes benchmarks_results/s33_scripts/logs/before_after_fix.log.
set -uo pipefail
log=benchmarks_results/s33_scripts/logs/before_after_fix.log
git worktree add -q /tmp/s32code 02ae19f
run() {  # $1: a thunder/fastpath folder
  .venv/bin/python -c "
import sys, runpy
import __editable___thunder_fastpath_0_1_0_finder as finder
finder.MAPPING['thunder.fastpath'] = '$1'
import thunder.fastpath
print('thunder.fastpath from', thunder.fastpath.__file__)
sys.argv = ['small_graph.py', '--quick', '--cases', 'two_8x8,params_1,train_step']
runpy.run_path('thunder/benchmarks/small_graph.py', run_name='__main__')
" 2>&1 | grep -E "^(thunder.fastpath from|two_8x8|params_1 |train_step)"
}
: > $log
for round in 1 2 3; do
  echo "== round $round, 02ae19f" >> $log; run /tmp/s32code/thunder/fastpath >> $log
  echo "== round $round, working tree" >> $log; run "$PWD/thunder/fastpath" >> $log
done
git worktree remove --force /tmp/s32code
