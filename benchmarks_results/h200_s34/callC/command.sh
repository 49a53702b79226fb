# run tool (nvidia-h200, warm after call B), carry [".device", "scratch/old_02ae19f"], 282 s: a hit before (02ae19f)
# and after (the working tree) session 33's reference-cycle fix on CUDA, three rounds; scratch/old_02ae19f was made
# with `git archive 02ae19f thunder/fastpath | tar -x -C scratch/old_02ae19f`.
mkdir -p $OUT && bash benchmarks_results/s34_scripts/device_s34c.sh 2>&1 | tail -40
