"""Guards: generated Python code per cache entry that decides a cache hit without the prologue.

Thunder (``thunder/__init__.py``, ``get_computation_and_inputs``) decides a hit by filling a ``cache_info`` dict
(``populate_cache_info``) and running the entry's prologue, whose checks are generic function calls. A guard is built
once per entry from that entry's prologue trace and answers the same question with inline code: the same unpacking,
the prologue's value checks written out (``prologue_checks.py``), the ``cache_info`` entries read straight from
torch's state (``state_checks.py``), all tensor metadata checked in one C++ call (dynamo's ``TensorGuards``) and the
aliasing by storage pointers (``tensor_checks.py``).

The checks are compiled alone (``Guard.check``), together with the call that a hit makes (``Guard.compile_with``,
used by ``hit_function.py``), and, only to explain a miss, in an explaining form (``Guard.explain``). A guard returns

* ``(computation_inputs, prologue_to_epilogue)`` where the prologue would pass,
* ``MISS`` where the prologue would fail (a definite miss for this entry),
* ``DECLINE`` where it cannot tell exactly (tensor subclasses, functorch's wrapped tensors, an autocast other than
  CPU's and CUDA's); the caller then takes Thunder's path, which decides exactly (or raises, as Thunder does on
  functorch's wrappers).

A prologue that uses anything the generator does not know raises ``Unsupported``: that entry keeps Thunder's path.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import torch

from thunder.core.proxies import Proxy, TensorProxy
from thunder.fastpath.codegen import Constants, compile_function, function_source
from thunder.fastpath.guard_steps import (
    DECLINE,
    MISS,
    NotThisCall,
    Step,
    Unsupported,
    explaining_lines,
    fast_lines,
    say,
)
from thunder.fastpath.prologue_checks import PrologueTranslator
from thunder.fastpath.state_checks import GlobalStateChecks
from thunder.fastpath.tensor_checks import (
    alias_check_steps,
    alias_string,
    tensor_check_steps,
    tensor_matches,
)

# Names the generated code uses for its own globals; trace names never start with two underscores.
_GLOBALS = {
    "torch": torch,
    "__MISS": MISS,
    "__DECLINE": DECLINE,
    "__null": object(),
    "__alias_string": alias_string,
}


@dataclass(eq=False)
class Guard:
    """One cache entry's guard: its checks as steps, compiled alone (``check``, for tests and benchmarks), in front of
    the code that a hit runs (``compile_with``: the fast path's per-entry function), or explaining (``explain``)."""

    steps: list[Step]
    namespace: dict
    input_list: list[str]  # the computation's arguments, each as source
    pro_to_epi: str  # what the prologue passes to the epilogue, as source
    grad_enabled: bool  # the grad mode the entry was made for
    no_grad_inputs: bool  # no tensor among the computation's arguments requires grad (the guard pins it)
    # The same steps, also setting `__same_layout`: every tensor has the sizes and strides of the call that the guard
    # was built from (None without tensors).
    steps_noting_layout: list[Step] | None = None
    tensor_names: frozenset = frozenset()  # the tensors that the guard checks
    # The shapes that the guard requires, in every dimension (tuples of ints), of tensors passed as arguments:
    # {position: shape}, a position being an index into args or a keyword. Any other shape there is a miss, as for the
    # prologue: the dispatcher skips this guard for such calls (dispatch.py, calls_by_shape).
    arg_shapes: dict = field(default_factory=dict)
    # An entry made under autocast: (device, Thunder dtype), what Thunder pushes onto the compile data's autocast
    # stack on each call under autocast, a hit too (state_checks.GlobalStateChecks); None for other entries.
    autocast: tuple | None = None

    @property
    def inputs(self) -> str:
        """The computation's arguments as one argument list (``"x, p, "``)."""
        return "".join(x + ", " for x in self.input_list)

    @functools.cached_property
    def check(self):
        """The guard alone: ``check(args, kwargs)`` is ``(computation_inputs, prologue_to_epilogue)``, ``MISS`` or
        ``DECLINE``. Compiled on first use: the hit functions run ``compile_with``'s, and only ``entry_layout``
        (``hit_function.py``), the tests and the benchmarks call this one."""
        return self.compile_with("guard", [f"return (({self.inputs}), ({self.pro_to_epi}))"], {})[0]

    def compile_with(self, name: str, on_pass: list[str], namespace: dict, *, noting_layout: bool = False):
        """A function ``name(args, kwargs)`` that returns ``MISS`` or ``DECLINE`` as the guard does, and otherwise
        runs the lines ``on_pass`` (which see the guard's locals and, besides its globals, ``namespace``; with
        ``noting_layout``, also ``__same_layout``). Returns the function and its source."""
        steps = self.steps_noting_layout if noting_layout else self.steps
        source = function_source(name, fast_lines(steps), on_pass)
        return compile_function(source, name, {**self.namespace, **namespace}), source

    @functools.cached_property
    def explain(self):
        """The explaining form: ``explain(args, kwargs)`` is ``None`` where the guard passes, else ``(verdict,
        message)``, the message saying in words which check failed, what the entry expected and what the call gave.
        Compiled on first use: only a miss asks (``explain.py``)."""
        body = explaining_lines(self.steps)
        source = function_source(
            "explain",
            body,
            ["return None"],
            handler="except Exception as __e:",
            on_error="return __MISS, __raised(__step, __e)",
        )
        namespace = {
            **self.namespace,
            "__say": functools.partial(say, self.steps),
            "__raised": functools.partial(_raised, self.steps),
        }
        return compile_function(source, "explain", namespace)


def _raised(steps, k: int, error: Exception) -> str:
    reason = steps[k].reason
    where = reason.subject if reason is not None else f"step {k} of the guard"
    return f"{where}: reading it raised {type(error).__name__}: {error}"


class GuardBuilder:
    """Builds one cache entry's ``Guard`` from its prologue trace: the prologue's own lines (``PrologueTranslator``),
    then the global state (``GlobalStateChecks``), the tensors and their aliasing (``tensor_checks``)."""

    def __init__(
        self,
        prologue_trace,
        *,
        thunder_module=None,
        compile_data=None,
        data_parallel=False,
        arg_names=(),
        cache_note="",
    ):
        self.namespace = dict(_GLOBALS)
        self.constant = Constants(self.namespace)
        self.data_parallel = data_parallel
        self.prologue = PrologueTranslator(
            prologue_trace,
            thunder_module=thunder_module,
            compile_data=compile_data,
            constant=self.constant,
            namespace=self.namespace,
            arg_names=arg_names,
            cache_note=cache_note,
        )

    def source_of(self, x) -> str:
        """A value that the prologue returns, as source."""
        if isinstance(x, Proxy):
            return x.name
        if isinstance(x, tuple):
            return "(" + "".join(self.source_of(i) + ", " for i in x) + ")"
        if isinstance(x, list):
            return "[" + ", ".join(self.source_of(i) for i in x) + "]"
        if x is None or type(x) in (bool, int, float, str):
            return self.constant(x)
        raise Unsupported(f"cannot return {type(x).__name__}")

    def build(self, args, kwargs) -> Guard:
        prologue = self.prologue
        body = prologue.translate()
        observed = self.observe(body, args, kwargs)
        # Global state first (cheap, and it decides entries made under autocast before the tensor guard, whose
        # dispatch keys would differ), then tensors, then aliasing (which relies on the tensor guard's types and
        # layouts).
        state = GlobalStateChecks(
            prologue.expected_state, data_parallel=self.data_parallel, namespace=self.namespace, constant=self.constant
        )
        state_steps = state.steps()
        tensors, tensors_noting_layout = tensor_check_steps(
            prologue.tensors, observed, prologue.overridden_parameters, prologue.paths, self.namespace
        )
        aliasing = []
        if "alias_tensor_indices" in prologue.expected_state:
            aliasing = alias_check_steps(
                prologue.expected_state["alias_tensor_indices"],
                prologue.top_level,
                prologue.arg_counts,
                prologue.checked,
                args,
                kwargs,
            )
        returned = prologue.returned
        if not (
            isinstance(returned, tuple) and len(returned) == 2 and all(isinstance(r, tuple | list) for r in returned)
        ):
            raise Unsupported("prologue does not return (computation inputs, prologue-to-epilogue values)")
        # Whether every tensor among the computation's inputs is pinned by the tensor guard as not requiring grad.
        pinned_no_grad = {s.name for s in prologue.tensors if not s.requires_grad}
        no_grad_inputs = all(not isinstance(x, TensorProxy) or x.name in pinned_no_grad for x in returned[0])
        noting_layout = [*body, *state_steps, *tensors_noting_layout, *aliasing] if tensors_noting_layout else None
        return Guard(
            steps=[*body, *state_steps, *tensors, *aliasing],
            namespace=self.namespace,
            input_list=[self.source_of(x) for x in returned[0]],
            pro_to_epi="".join(self.source_of(x) + ", " for x in returned[1]),
            grad_enabled=state.grad_enabled,
            no_grad_inputs=no_grad_inputs,
            steps_noting_layout=noting_layout,
            tensor_names=frozenset(s.name for s in prologue.tensors),
            arg_shapes={
                prologue.top_level[s.name][1]: s.shape
                for s in prologue.tensors
                if s.name in prologue.top_level and None not in s.shape
            },
            autocast=state.autocast,
        )

    def observe(self, body: list[Step], args, kwargs) -> dict:
        """The prologue's unpacking run once on the call the guard is built from: each name's value. The tensor guard
        pins the types and layouts it observes, so the observed tensors must pass the prologue's tensor checks, as
        they did in the call's lookup, unless another thread changed them since (``NotThisCall``)."""
        probe = compile_function(
            function_source("probe", fast_lines(body), ["return locals()"]), "probe", self.namespace
        )
        observed = probe(args, kwargs)
        if observed is MISS or not all(_passes_tensor_check(observed[s.name], s) for s in self.prologue.tensors):
            raise NotThisCall("the entry's own call does not pass its guard")
        return observed


def build_guard(
    prologue_trace,
    args,
    kwargs,
    *,
    thunder_module=None,
    compile_data=None,
    data_parallel=False,
    arg_names=(),
    cache_note="",
) -> Guard:
    """Builds the ``Guard`` of a cache entry from its prologue trace and one call that hit it (whose arguments give
    the exact types that the tensor guard pins). Raises ``Unsupported`` when the prologue cannot be expressed as a
    guard, or when that call fails the prologue's own tensor checks."""
    builder = GuardBuilder(
        prologue_trace,
        thunder_module=thunder_module,
        compile_data=compile_data,
        data_parallel=data_parallel,
        arg_names=arg_names,
        cache_note=cache_note,
    )
    return builder.build(args, kwargs)


def _passes_tensor_check(t, spec) -> bool:
    try:
        return tensor_matches(t, *spec.metadata())
    except Exception:  # no sizes (a strided nested tensor): the prologue fails on it too
        return False
