# Sourced at the start of a device command (bash), with carry [".device"]: `source .ci/device_prelude.sh || exit 1`.
# Sets up the device kit (.device/setup.sh: torch, lightning-thunder, nvFuser), installs the carried extra wheels
# (.device/extra_whl: pytest-xdist and what it needs) into /tmp/extra, and links the working tree's
# thunder/fastpath into the installed thunder so that `import thunder.fastpath` runs this checkout's code.
source .device/setup.sh >/dev/null 2>&1 || return 1
if [ -d .device/extra_whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl || return 1
  export PYTHONPATH=/tmp/extra:$PYTHONPATH
fi
ln -sfn "$PWD/thunder/fastpath" "$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")/fastpath" || return 1
export PYTHONUNBUFFERED=1
