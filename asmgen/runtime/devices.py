"""GPU discovery: list the ROCm devices hip-python sees, with their ``gcnArchName``
(``gfx942:sramecc+:xnack-``), and turn such a name into the plain arch our code objects target.

With no ROCm, ``list_devices`` raises ``HipUnavailable`` naming the missing piece (hip-python or
``libamdhip64.so``) and how to install it; ``probe_devices`` returns the same reason as text instead,
for callers that fall back (``backend.select_backend("auto")``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..target import CDNA3
from .errors import DeviceMismatch, HipError, HipUnavailable
from .hipapi import hip_api, hip_call

# target id grammar: processor then ":feature+|-" (LLVM AMDGPUUsage, "Target ID")
_GCN_RE = re.compile(r"^(gfx[0-9a-f]+)((?::[a-z0-9_]+[+-])*)$")


def parse_gcn_name(gcn_arch_name: str) -> tuple[str, dict[str, bool]]:
    """``"gfx942:sramecc+:xnack-"`` -> ``("gfx942", {"sramecc": True, "xnack": False})``."""
    text = (gcn_arch_name or "").strip()
    m = _GCN_RE.match(text)
    if not m:
        raise ConfigError(f"gcnArchName {gcn_arch_name!r} is not a target id like "
                          f"'{CDNA3}:sramecc+:xnack-'")
    feats = {f[:-1]: f[-1] == "+" for f in m.group(2).split(":") if f}
    return m.group(1), feats


def arch_from_gcn_name(gcn_arch_name: str) -> str:
    """The processor of a target id: ``"gfx942:sramecc+:xnack-"`` -> ``"gfx942"``."""
    return parse_gcn_name(gcn_arch_name)[0]


@dataclass(frozen=True)
class GpuDevice:
    """One HIP device as hipGetDeviceProperties reports it."""

    index: int
    name: str
    gcn_arch_name: str
    compute_units: int = 0
    total_memory: int = 0
    features: dict = field(default_factory=dict, compare=False)

    @property
    def arch(self) -> str:
        return arch_from_gcn_name(self.gcn_arch_name)

    def describe(self) -> str:
        mem = f"{self.total_memory / 2**30:.0f} GiB" if self.total_memory else "? GiB"
        return f"[{self.index}] {self.name}  {self.gcn_arch_name}  {self.compute_units} CUs  {mem}"


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(value)


def device_count(hip: Any = None) -> int:
    """Number of HIP devices (0 when HIP says hipErrorNoDevice)."""
    hip = hip_api() if hip is None else hip
    try:
        return int(hip_call(hip, "hipGetDeviceCount"))
    except HipError as exc:
        if exc.name == "hipErrorNoDevice":
            return 0
        raise


def get_device(index: int, hip: Any = None) -> GpuDevice:
    """Properties of device ``index`` (hipGetDeviceProperties)."""
    hip = hip_api() if hip is None else hip
    props = hip_call(hip, "hipGetDeviceProperties", int(index))
    gcn = _text(getattr(props, "gcnArchName", ""))
    _, feats = parse_gcn_name(gcn)
    return GpuDevice(index=int(index), name=_text(getattr(props, "name", "")), gcn_arch_name=gcn,
                     compute_units=int(getattr(props, "multiProcessorCount", 0) or 0),
                     total_memory=int(getattr(props, "totalGlobalMem", 0) or 0), features=feats)


def list_devices(hip: Any = None) -> list[GpuDevice]:
    """All HIP devices; ``[]`` when ROCm is installed but sees no GPU; ``HipUnavailable`` when
    hip-python or ``libamdhip64.so`` is missing."""
    hip = hip_api() if hip is None else hip
    return [get_device(i, hip) for i in range(device_count(hip))]


def probe_devices(hip: Any = None) -> tuple[list[GpuDevice], str]:
    """``(devices, reason)``: the devices, or ``[]`` and why none is usable (never raises for a
    missing runtime)."""
    try:
        devs = list_devices(hip)
    except (HipUnavailable, HipError) as exc:
        return [], str(exc)
    if not devs:
        return [], "HIP runtime loaded but it reports no GPU (hipGetDeviceCount = 0)"
    return devs, ""


def check_compatible(kernel_arch: str, device: GpuDevice) -> None:
    """Raise ``DeviceMismatch`` unless a code object for ``kernel_arch`` (a target id; a plain
    processor means sramecc/xnack "any") can load on ``device``."""
    k_arch, k_feats = parse_gcn_name(kernel_arch)
    if k_arch != device.arch:
        raise DeviceMismatch(f"the kernel targets {kernel_arch} but device {device.index} "
                             f"({device.name}) is {device.gcn_arch_name}")
    for feat, on in k_feats.items():
        if feat in device.features and device.features[feat] != on:
            raise DeviceMismatch(f"the kernel targets {kernel_arch} but device {device.index} is "
                                 f"{device.gcn_arch_name} ({feat} differs)")
