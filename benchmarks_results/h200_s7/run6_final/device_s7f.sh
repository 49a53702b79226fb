source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "nvfuser or Region or fusion" 2>&1 | tail -n 3 | tee "$OUT/cuda_tests.log"
