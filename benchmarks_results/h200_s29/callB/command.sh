# run tool (the device was an NVIDIA H200), carry [".device"], 367 s; the script as it ran (code_sha1.log: the
# working tree with thunder/fastpath/autograd.py and its tests, before they were committed; a first attempt of this
# call got no machine):
bash benchmarks_results/s29_scripts/device_s29b.sh
