# run tool (the device was an NVIDIA H200, a freshly started machine), carry [".device"], 108 s; the script as it ran
# (module_call_variants.py then had no InlineDispatch row; it was added after this call):
bash benchmarks_results/s28_scripts/device_s28a.sh
