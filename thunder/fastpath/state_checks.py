"""The global-state checks of a guard (part of ``guard.py``'s ``GuardBuilder``).

Thunder's ``populate_cache_info`` records torch's global state in ``cache_info`` (grad mode, autocast, the default
dtype and device, data parallelism's ``no_grad_sync``), and each entry's prologue compares the entries it reads with
the values the entry was made under. A guard reads the same state straight from torch, one C call each, and compares
it with those values.
"""

from __future__ import annotations

import torch

from thunder.fastpath.codegen import block
from thunder.fastpath.guard_steps import DECLINE_NOW, Reason, Step, Unsupported, miss_if

CACHE_INFO_KEYS = (
    "default_dtype",
    "default_device",
    "is_autocast_enabled",
    "alias_tensor_indices",
    "is_grad_enabled",
    "no_grad_sync",
    # present only for entries made under autocast (GlobalStateChecks.autocast)
    "autocast_config_torch_enabled",
    "autocast_config_torch_cpu_enabled",
    "autocast_gpu_dtype",
    "autocast_cpu_dtype",
    "autocast_thunder_dtype",
)
_AUTOCAST_KEYS = CACHE_INFO_KEYS[6:]

# What the generated checks call; trace names never start with two underscores.
NAMESPACE = {
    "__get_default_dtype": torch.get_default_dtype,
    "__get_default_device": torch.get_default_device,
    "__len_torch_function_stack": torch._C._len_torch_function_stack,
    "__device_context": torch._GLOBAL_DEVICE_CONTEXT,
    "__is_grad_enabled": torch.is_grad_enabled,
    "__is_any_autocast_enabled": torch._C._is_any_autocast_enabled,
    "__is_autocast_enabled": torch.is_autocast_enabled,
    "__get_autocast_dtype": torch.get_autocast_dtype,
}


def _grad_mode_words():
    return "enabled" if torch.is_grad_enabled() else "disabled"


def _autocast_words():
    on = [d for d in ("cuda", "cpu") if torch.is_autocast_enabled(d)]
    if not on:
        return "off" if not torch._C._is_any_autocast_enabled() else "an autocast other than CPU's and CUDA's"
    return ", ".join(f"on for {d} ({torch.get_autocast_dtype(d)})" for d in on)


class GlobalStateChecks:
    """One method per kind of global state; ``steps()`` gives the checks of those that the prologue reads."""

    def __init__(self, expected_state: dict, *, data_parallel: bool, namespace: dict, constant):
        unknown = set(expected_state) - set(CACHE_INFO_KEYS)
        if unknown:
            raise Unsupported(f"cache_info {sorted(unknown)}")
        self.expected = expected_state
        self.data_parallel = data_parallel
        self.namespace = namespace
        self.constant = constant  # a codegen.Constants: the guard's source for a value
        namespace.update(NAMESPACE)
        namespace["__grad_mode_words"] = _grad_mode_words
        namespace["__autocast_words"] = _autocast_words
        # (device, Thunder dtype) of an entry made under autocast: what Thunder's populate_cache_info pushes onto the
        # compile data's autocast stack on every call under autocast (a hit must push it too: the stack decides later
        # compilations). None for other entries.
        self.autocast = None

    @property
    def grad_enabled(self) -> bool:
        """The grad mode the entry was made for (its computation runs under no_grad whatever it is)."""
        return bool(self.expected.get("is_grad_enabled", torch.is_grad_enabled()))

    def steps(self) -> list[Step]:
        # One C call each. dynamo's GlobalStateGuard, which checks these in one call, is private API and measured no
        # faster (guard_alternatives.py times the tensor part of that comparison).
        steps = []
        if "is_grad_enabled" in self.expected:
            steps.append(self.grad_mode())
        steps += self.autocast_steps() if self.expected.get("is_autocast_enabled") is True else self.autocast_off()
        if "default_dtype" in self.expected:
            steps.append(self.default_dtype())
        if "default_device" in self.expected:
            steps.append(self.default_device())
        if "no_grad_sync" in self.expected:
            steps += self.no_grad_sync()
        return steps

    def grad_mode(self) -> Step:
        enabled = bool(self.expected["is_grad_enabled"])
        reason = Reason("grad mode", "enabled" if enabled else "disabled", "__grad_mode_words()", words=True)
        return Step((miss_if(f"__is_grad_enabled() is not {enabled}"),), reason)

    def autocast_off(self) -> list[Step]:
        # Thunder looks at CPU's and CUDA's autocast: either on fails this entry's prologue where it checks
        # is_autocast_enabled. Any other autocast (or CPU's and CUDA's where the prologue does not check it): let
        # Thunder decide.
        on_cpu_or_cuda = "__is_autocast_enabled('cuda') or __is_autocast_enabled('cpu')"
        miss = [miss_if(on_cpu_or_cuda)] if "is_autocast_enabled" in self.expected else []
        reason = Reason("autocast", "off", "__autocast_words()", words=True)
        return [Step(tuple(block("if __is_any_autocast_enabled():", [*miss, DECLINE_NOW])), reason)]

    def autocast_steps(self) -> list[Step]:
        """The checks of an entry made under autocast: Thunder's cache-info entries for it, read from torch."""
        from thunder.core.dtypes import to_dtype

        expected = self.expected
        if any(k not in expected for k in _AUTOCAST_KEYS):
            raise Unsupported("an entry made under autocast whose prologue checks part of the autocast state")
        cuda_on, cpu_on = expected["autocast_config_torch_enabled"], expected["autocast_config_torch_cpu_enabled"]
        if {cuda_on, cpu_on} != {True, False}:
            raise Unsupported(f"autocast on CUDA {cuda_on!r} and on CPU {cpu_on!r}")  # Thunder raises on both
        # The cache info holds Thunder's dtypes as strings; the guard compares torch's dtypes.
        by_name = {str(to_dtype(d)): d for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)}
        gpu, cpu = by_name.get(expected["autocast_gpu_dtype"]), by_name.get(expected["autocast_cpu_dtype"])
        thunder_dtype = cpu if cpu_on else gpu
        if gpu is None or cpu is None or str(to_dtype(thunder_dtype)) != expected["autocast_thunder_dtype"]:
            raise Unsupported(f"autocast dtypes { ({k: expected[k] for k in _AUTOCAST_KEYS[2:]}) }")
        device = "cpu" if cpu_on else "cuda"
        self.autocast = (device, to_dtype(thunder_dtype))
        reason = Reason("autocast", f"on for {device} ({cpu if cpu_on else gpu})", "__autocast_words()", words=True)
        return [
            Step(
                (
                    miss_if(
                        f"__is_autocast_enabled('cuda') is not {cuda_on} or __is_autocast_enabled('cpu') is not"
                        f" {cpu_on}"
                    ),
                ),
                reason,
            ),
            Step(
                (miss_if(f"__get_autocast_dtype('cuda') is not {gpu} or __get_autocast_dtype('cpu') is not {cpu}"),),
                Reason(
                    "autocast dtypes (cuda, cpu)",
                    f"({gpu}, {cpu})",
                    "(__get_autocast_dtype('cuda'), __get_autocast_dtype('cpu'))",
                ),
            ),
        ]

    def default_dtype(self) -> Step:
        dtype = self.expected["default_dtype"]
        reason = Reason("default dtype", str(dtype), "__get_default_dtype()")
        return Step((miss_if(f"__get_default_dtype() is not {dtype}"),), reason)

    def default_device(self) -> Step:
        device = torch.device(self.expected["default_device"])
        name = self.constant(device)
        reason = Reason("default device", str(device), "__get_default_device()")
        if device == torch.device("cpu"):
            # torch.get_default_device() costs microseconds; without a device mode on the torch-function stack and
            # without a global device context it is the CPU.
            line = miss_if(
                "(__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None)"
                f" and __get_default_device() != {name}"
            )
        else:
            line = miss_if(f"__get_default_device() != {name}")
        return Step((line,), reason)

    def no_grad_sync(self) -> list[Step]:
        skip = bool(self.expected["no_grad_sync"])
        if not self.data_parallel:
            if skip:
                raise Unsupported("no_grad_sync without data parallelism")
            return []
        from thunder.distributed import get_skip_data_parallel_grad_sync

        self.namespace["__no_grad_sync"] = get_skip_data_parallel_grad_sync
        reason = Reason("data parallelism's no_sync", str(skip), "__no_grad_sync()")
        return [Step((miss_if(f"__no_grad_sync() is not {skip}"),), reason)]
