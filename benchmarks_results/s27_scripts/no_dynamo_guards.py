# Ran in session 27 at or before cbdedff; the GlobalStateGuard parts need that code (later commits dropped it).
"""A pytest plugin (session 27): turns the fast path on, as ``-p thunder.fastpath`` does, on a torch taken to lack
dynamo's GlobalStateGuard, or with NO_DYNAMO_GUARDS=all its TensorGuards as well (guard.py's and nvfuser.py's
fallbacks). Used by fallback_suites.sh."""
import os

import thunder.fastpath
import thunder.fastpath.guard
import thunder.fastpath.nvfuser

thunder.fastpath.guard.GlobalStateGuard = None
if os.environ.get("NO_DYNAMO_GUARDS") == "all":
    thunder.fastpath.guard.TensorGuards = None
    thunder.fastpath.nvfuser.TensorGuards = None
