WORKERS=7 bash benchmarks_results/s38_scripts/device_s38b.sh "nvfuser and cuda and int8"
