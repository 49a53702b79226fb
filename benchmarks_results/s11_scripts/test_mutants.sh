#!/usr/bin/env bash
# Session 11's new tests against deliberately broken versions of the fast path: which tests fail with each, and the
# same selection on the unbroken code. Restores thunder/fastpath after each; run from the checkout's root with a
# clean thunder/fastpath.
set -u
git diff --quiet thunder/fastpath || { echo "thunder/fastpath has changes"; exit 1; }
pytest_selection() {  # $1: a -k expression, or "" for the whole file
  .venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py ${1:+-k "$1"} 2>&1 \
    | grep -E "passed|failed|FAILED"
}
try_mutant() {  # $1: title, $2: file, $3: sed script, $4: the tests run with the mutant, $5: with the unbroken code
  echo "== mutant: $1"
  sed -i "$3" "$2"
  git diff "$2" | grep '^[-+] '
  pytest_selection "$4"
  git checkout -q thunder/fastpath
  echo "-- unbroken"
  pytest_selection "$5"
}
try_mutant "the guard's alias check compares storage objects (torch._C._storage_address), not data pointers" \
  thunder/fastpath/guard.py \
  's/ptrs = \[f"{name}.untyped_storage().data_ptr()" for name in storages\]/ptrs = [f"torch._C._storage_address({name})" for name in storages]/' \
  "alias or storage or empty" "alias or storage or empty"
try_mutant "CacheHit keeps the arguments and outputs of the call its guard was built from" \
  thunder/fastpath/cache_hit.py \
  's/        self.entry = entry$/        self.entry = entry\n        self.kept = (args, kwargs, outputs)/; s/"entry_layout", "call", "source")/"entry_layout", "call", "source", "kept")/' \
  "alive or collected" "alive or collected"
try_mutant "the hit's grad-mode switch restored on success only (left off when the computation raises)" \
  thunder/fastpath/cache_hit.py \
  "s/\"    __set_grad_enabled(True)\"/\"    __set_grad_enabled(__import__('sys').exc_info()[0] is None)\"/" \
  "" "raises_on_a_hit or grad"
