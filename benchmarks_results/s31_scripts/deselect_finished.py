"""pytest plugin: leaves out the tests that an earlier run already compared.

    FINISHED_TESTS=both.txt python -m pytest -p deselect_finished ...

$FINISHED_TESTS holds one test per line, its first field the test's node id after the file part ("::name", as the
device scripts' outcome lists write it from pytest-xdist's -v lines, which print a name's dots as "::"). Those tests
are deselected.
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
        (drop if _key("::" + item.nodeid.split("::", 1)[1]) in finished else keep).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


def _key(name):
    # xdist's -v lines print "thunder.dtypes.float32" in a test's name as "thunder::dtypes::float32"
    return name.replace(".", "::")
