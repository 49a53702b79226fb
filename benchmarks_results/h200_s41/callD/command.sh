# Session 41, device call D (nvidia-h200, cold): cuda_streams_graphs_probe.py again, its third case fixed (call C's
# version updated a leaf that requires grad in place, which raised on both paths before any replay); outputs now
# also show requires_grad and grad_fn.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py benchmarks_results/s41_scripts/cuda_streams_graphs_probe.py; uptime; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 120 python3 benchmarks_results/s41_scripts/cuda_streams_graphs_probe.py 2>&1 | grep -v -i warn \
  | tee "$OUT/cuda_streams_graphs_probe.log"
