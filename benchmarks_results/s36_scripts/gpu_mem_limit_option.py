"""A pytest plugin for running lightning-thunder's shipped tests under pytest 8 (``-p gpu_mem_limit_option``, with
this folder on PYTHONPATH). The shipped ``thunder/tests/conftest.py`` declares ``--gpu-mem-limit`` in its
``pytest_addoption`` and reads it in an autouse fixture's teardown on CUDA machines. Loaded through ``--pyargs``, that
conftest comes after the command line was parsed; pytest 9 then gives the late option its default, pytest 8 does not,
and every CUDA test errored at teardown (session 36, call A). This gives the option its default (None: no limit)."""


def pytest_configure(config):
    if not hasattr(config.option, "gpu_mem_limit"):
        config.option.gpu_mem_limit = None
