#!/bin/bash
# Session 23: mutants of the argument-position index; each should fail at least one of the index tests.
# Usage: bash benchmarks_results/s23_scripts/index_mutants.sh [K=... to choose the tests]; restores cache_hit.py.
cd "$(dirname "$0")/../.." || exit 1
# K: which tests run (default: the index tests and the generated sequences)
K=${K:-"calls_by_shape or older_entries or index_follows or generated_call_sequences"}
orig=$(mktemp); cp thunder/fastpath/cache_hit.py "$orig"
run() {
  echo "== mutant: $1"
  python3 - "$2" "$3" <<'PY'
import sys
p = "thunder/fastpath/cache_hit.py"; s = open(p).read()
old, new = sys.argv[1], sys.argv[2]
assert s.count(old) == 1, old
open(p, "w").write(s.replace(old, new))
PY
  .venv/bin/python -m pytest -q -p no:warnings thunder/tests/test_overhead.py -k "$K" 2>&1 | tail -1
  cp "$orig" thunder/fastpath/cache_hit.py
}
run "keywords ignored" 'x = kwargs.get(position)' 'x = None'
run "always the first argument" 'position = max(shapes_at, key=lambda p: len(shapes_at[p]), default=None)' 'position = 0 if 0 in shapes_at else None'
run "buckets without entries that require no shape" 'if req is None or req == shape)' 'if req == shape)'
run "the fewest shapes chosen" 'position = max(shapes_at' 'position = min(shapes_at'
run "a position past the call's arguments read" 'x = args[position] if position < len(args) else None' 'x = args[position]'
echo "== unmutated"
.venv/bin/python -m pytest -q -p no:warnings thunder/tests/test_overhead.py -k "$K" 2>&1 | tail -1
rm -f "$orig"
