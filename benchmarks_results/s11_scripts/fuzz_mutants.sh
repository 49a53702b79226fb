#!/usr/bin/env bash
# fuzz_differential.py against two broken versions of the fast path: it must find each. Restores the files
# afterwards; run from the checkout's root with clean thunder/fastpath. Usage: fuzz_mutants.sh [examples] [seed]
set -u
N=${1:-150}; SEED=${2:-2}
git diff --quiet thunder/fastpath || { echo "thunder/fastpath has changes"; exit 1; }
run() { .venv/bin/python benchmarks_results/s11_scripts/fuzz_differential.py "$N" "$SEED" 2>&1 \
          | grep -E "^(AssertionError|[0-9]+ examples)|Falsifying|^E  " | head -5; }
echo "== mutant 1: views ignored by the grad-free rule (outputs_are_new always true in cache_hit.py)"
sed -i 's/        and outputs_are_new(tree_leaves(outputs), tree_leaves((args, kwargs)))/        and True/' thunder/fastpath/cache_hit.py
git diff --stat thunder/fastpath | head -2; run; git checkout -q thunder/fastpath
echo "== mutant 2: no storage-alias check when none is expected (guard.py)"
sed -i 's/^        ptrs = \[f"{name}.untyped_storage().data_ptr()" for name in storages\]/        ptrs = []/' thunder/fastpath/guard.py
git diff --stat thunder/fastpath | head -2; run; git checkout -q thunder/fastpath
echo "== unbroken"; run
