"""pytest plugin: leaves out the tests that an earlier run already compared.

    FINISHED_TESTS=both.txt python -m pytest -p deselect_finished ...

$FINISHED_TESTS holds one test per line, its first field the test as the device scripts' outcome lists write it from
pytest-xdist's -v lines: "::name" (device_s31a.sh) or "path/to/test_module.py::name" (device_s32a.sh, whose
--rootdir gives ids a module path). Those tests are deselected. A test is matched by its module's file name and its
name.
"""

import os


def pytest_collection_modifyitems(config, items):
    path = os.environ.get("FINISHED_TESTS")
    if not path:
        return
    with open(path) as f:
        finished = {_key(line.split()[0]) for line in f if line.strip()}
    keep, drop = [], []
    for item in items:
        (drop if _key(item.nodeid) in finished else keep).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


def _key(test_id):
    # The -v lines give the module's path from where pytest ran, a collected item's id the path from the rootdir (or
    # none, as the -v lines then do): compare file names. And xdist's -v lines print "thunder.dtypes.float32" in a
    # test's name as "thunder::dtypes::float32".
    path, _, name = test_id.partition("::")
    return os.path.basename(path) + "::" + name.replace(".", "::")
