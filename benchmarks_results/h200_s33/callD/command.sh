# run tool (nvidia-h200, a fresh machine), carry [".device"], 44 s (held 147 s with the start); at 907a734's runtime
# code and test_overhead.py (code_sha1.log):
LIMIT=80 bash benchmarks_results/s33_scripts/device_s33d.sh 2>&1 | tail -30
