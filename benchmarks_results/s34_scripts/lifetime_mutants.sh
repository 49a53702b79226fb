# Session 34, this CPU: test_inputs_and_outputs_are_freed_at_once_like_upstream against two mutants of
# thunder/fastpath/cache_hit.py (the dispatcher keeps the last call's arguments; a CacheHit keeps the outputs of the
# call its guard was built from), each applied, run and reverted. From the checkout's root (a clean
# thunder/fastpath); writes benchmarks_results/s34_scripts/logs/lifetime_mutants.log.
set -uo pipefail
log=benchmarks_results/s34_scripts/logs/lifetime_mutants.log
f=thunder/fastpath/cache_hit.py
cp $f /tmp/cache_hit.py.orig
mutate() {  # $1: label, $2: old line, $3: the line put after it
  cp /tmp/cache_hit.py.orig $f
  python3 - "$f" "$2" "$3" <<'PY'
import sys
path, old, extra = sys.argv[1:]
s = open(path).read()
assert old in s
s = s.replace(old, old + extra, 1).replace("class CacheHit:", "_KEEP = []\n\n\nclass CacheHit:", 1)
open(path, "w").write(s)
PY
  echo "== $1" >> $log
  .venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "freed_at_once and cpu" \
    2>&1 | grep -E "^E  .*(assert|diff)|passed|failed" | head -n 3 >> $log
}
: > $log
echo "== unmutated" >> $log
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "freed_at_once and cpu" 2>&1 | tail -n 1 >> $log
mutate "the dispatcher keeps the last arguments" "    def dispatch(args, kwargs):
" "        _KEEP[:] = [args]
"
mutate "a CacheHit keeps its call's outputs" "        self.entry = entry
" "        _KEEP.append(outputs)
"
cp /tmp/cache_hit.py.orig $f
git diff --quiet -- $f && echo "== cache_hit.py restored" >> $log
