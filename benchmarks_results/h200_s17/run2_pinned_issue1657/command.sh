#!/usr/bin/env bash
# The command of session 17's H200 run 2, as sent to the device tool (carry [".device"]), one line per step.
source .device/setup.sh >/dev/null 2>&1
site=$(python3 -c "import thunder,os;print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
uptime
taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 --json $OUT/pinned.json 2>&1 | grep -v -i warn | tee $OUT/pinned.log
taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657 2>&1 | grep -v -i warn | tee $OUT/breakdown_pinned.log
uptime
