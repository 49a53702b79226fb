# Session 35: the two lifetime tests of test_overhead.py (as refactored in c3aa883) against mutants of
# thunder/fastpath, each applied, run and reverted:
#   cycle test (test_jitted_callables_are_freed_without_the_cycle_collector_like_upstream):
#     1. a hit function kept in its own globals (function -> globals -> function);
#     2. the fast path's state put in the hit functions' namespace (function -> state -> hits -> function);
#   freed test (test_inputs_and_outputs_are_freed_at_once_like_upstream):
#     3. the dispatcher keeps the last call's arguments;
#     4. a CacheHit keeps the outputs of the call its guard was built from;
#     5. nvFuser regions keep their last inputs (every `if self.store_inputs:` made true; CUDA + nvFuser only).
# Usage: PY=python3 K=<pytest -k filter for the parameters, e.g. "cpu" or "cuda"> LOG=<file> bash <this script>
# From the checkout's root with a clean thunder/fastpath.
set -uo pipefail
PY=${PY:-.venv/bin/python}; K=${K:-cpu}; LOG=${LOG:-/dev/stdout}
cp thunder/fastpath/cache_hit.py /tmp/cache_hit.py.orig
cp thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig
restore() { cp /tmp/cache_hit.py.orig thunder/fastpath/cache_hit.py; cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py; }
insert_after() {  # $1: file, $2: an existing line (with its newline), $3: what to put after it
  $PY - "$1" "$2" "$3" <<'PY'
import sys
path, old, extra = sys.argv[1:]
s = open(path).read()
assert s.count(old) == 1, old
s = s.replace(old, old + extra, 1).replace("class CacheHit:", "_KEEP = []\n\n\nclass CacheHit:", 1)
open(path, "w").write(s)
PY
}
run() {  # $1: label, $2: test name part
  echo "== $1" >> "$LOG"
  $PY -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "$2 and ($K)" 2>&1 \
    | grep -E "^E  .*(assert|diff)|passed|failed|error" | head -n 4 >> "$LOG"
}
CYCLE=freed_without_the_cycle_collector; FREED=freed_at_once
run "unmutated, cycle test" $CYCLE
run "unmutated, freed test" $FREED
insert_after thunder/fastpath/cache_hit.py '        self.call, self.source = guard.compile_with("hit", self._on_pass(), namespace, noting_layout=noting_layout)
' '        self.call.__globals__["__itself"] = self.call
'
run "1. a hit function in its own globals (cycle test)" $CYCLE; restore
insert_after thunder/fastpath/cache_hit.py '        "__call_with_backward": call_with_backward,
' '        "__state": state,
'
run "2. the state in the hit namespace (cycle test)" $CYCLE; restore
insert_after thunder/fastpath/cache_hit.py '    def dispatch(args, kwargs):
' '        _KEEP[:] = [args]
'
run "3. the dispatcher keeps the last arguments (freed test)" $FREED; restore
insert_after thunder/fastpath/cache_hit.py '        self.entry = entry
' '        _KEEP.append(outputs)
'
run "4. a CacheHit keeps its call's outputs (freed test)" $FREED; restore
sed -i 's/if self\.store_inputs:/if True:/' thunder/fastpath/nvfuser.py
run "5. nvFuser regions keep their last inputs ($(grep -c 'if True:' thunder/fastpath/nvfuser.py) lines; freed test)" "$FREED and executors2"
restore
cmp -s thunder/fastpath/cache_hit.py /tmp/cache_hit.py.orig && cmp -s thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig \
  && echo "== thunder/fastpath restored (as before the first mutant)" >> "$LOG"
