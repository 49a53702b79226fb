# Session 8, device call D: a second benchmark of #1657 and two_8x8 (31 repeats), and the A/B again (31 repeats).
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
date
python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,two_8x8 --repeats 31 --json "$OUT/cuda_31.json" 2>&1 | grep -v -i warn | tee "$OUT/cuda_31.log"
date
N=5000 R=31 python3 benchmarks_results/s8_scripts/ab_layout_shortcut.py cuda issue1657 2>&1 | grep -v -i warn > "$OUT/ab_31.log"; grep -A5 "^==" "$OUT/ab_31.log"
date
