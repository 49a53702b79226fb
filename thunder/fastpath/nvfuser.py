"""nvFuser compatibility for the fast path (stands for changes to ``thunder/executors/nvfuserex_impl.py``).

lightning-thunder 0.2.6 imports ``compute_tensor_descriptor`` from the legacy ``nvfuser`` module, which current
nvFuser releases (0.2.36) no longer ship: they ship only ``nvfuser_direct``. Without a fix, Thunder fails on its
first nvFuser fusion. ``install()`` registers a minimal ``nvfuser`` module that forwards that one function to
``nvfuser_direct``, and only where the legacy module is missing and ``nvfuser_direct`` is present.

Not here yet: the region call itself (reusing the last FusionDefinition while the input layout is unchanged and
calling nvFuser's executor directly); nvFuser regions still run through upstream's FusionDefinitionWrapper.
"""

from __future__ import annotations

import importlib.util
import sys
import types

_ALIAS_DOC = "thunder.fastpath: forwards compute_tensor_descriptor to nvfuser_direct (legacy module missing)"


def install() -> None:
    if "nvfuser" in sys.modules or importlib.util.find_spec("nvfuser") is not None:
        return
    if importlib.util.find_spec("nvfuser_direct") is None:
        return
    import nvfuser_direct

    legacy = types.ModuleType("nvfuser", _ALIAS_DOC)
    legacy.compute_tensor_descriptor = nvfuser_direct.compute_tensor_descriptor
    sys.modules["nvfuser"] = legacy


def uninstall() -> None:
    # The alias only repairs an import; it stays while the process lives, whatever the switch says.
    pass
