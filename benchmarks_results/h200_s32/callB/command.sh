# nvidia-h200, carry [".device"], timeout 600 s: wall 583 s.
bash benchmarks_results/s32_scripts/device_s32b.sh 2>&1 | tail -n 60
# resnet18_calls.py was stopped by its 330 s timeout during the nvFuser float32 train=True configuration (the
# TF32-off half did not run); the first of the shipped test's off runs was stopped by its 55 s timeout after one
# of its two tests.
