# nvidia-h200, carry [".device"], timeout 600 s: wall 252 s.
bash benchmarks_results/s32_scripts/device_s32a.sh 2>&1 | tail -n 40
# outcomes.txt and both.txt here were recomputed after the run, from the kept on.log and off.log, with the
# script's current pattern (workers' progress lines only). The version that ran also took the short summary's
# FAILED lines, whose names have dots instead of "::", so its printed counts ("316 tests finished", "341 in both")
# counted failures twice; the per-test outcomes are the same (300 tests each way).
