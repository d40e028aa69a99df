"""Backend selection for ``load(..., backend=...)``: ``"emu"`` (the project's emulator, always
there), ``"hip"`` (a ROCm GPU through hip-python; an error when none is usable) and ``"auto"`` (the
GPU when one is present and matches the kernel's arch, else the emulator).

The choice is reported two ways, both documented here: the returned ``BackendChoice.reason`` (also
set as ``runner.backend_reason`` by ``asmgen.runtime.load``) and one INFO record on the
``asmgen.runtime`` logger. No warning is raised: falling back to the emulator is the expected case
on machines without a GPU, and the caller asked for it by saying ``auto``.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from .devices import GpuDevice, arch_from_gcn_name, probe_devices
from .errors import BackendError, HipUnavailable

BACKENDS = ("emu", "hip", "auto")
log = logging.getLogger("asmgen.runtime")


@dataclass(frozen=True)
class BackendChoice:
    """Which backend runs the kernel (``"emu"`` or ``"hip"``), why, and on which device."""

    name: str
    reason: str
    device: GpuDevice | None = None
    devices: tuple = field(default=(), compare=False)


def select_backend(backend: str = "auto", arch: str | None = None, device: int | None = None,
                   hip: Any = None) -> BackendChoice:
    """Resolve ``backend`` to ``emu`` or ``hip``. ``arch`` (the kernel's) restricts which GPU fits;
    ``device`` picks one by index. ``hip`` injects the HIP bindings (tests)."""
    if backend not in BACKENDS:
        raise BackendError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
    if backend == "emu":
        choice = BackendChoice("emu", "backend 'emu' requested: running on the isa.emu emulator")
        log.info("asmgen backend: %s", choice.reason)
        return choice
    if backend == "hip":
        from .devices import list_devices
        devs = list_devices(hip)          # HipUnavailable when hip-python / libamdhip64.so is missing
        if not devs:
            raise HipUnavailable("backend 'hip' requested but HIP reports no GPU (hipGetDeviceCount = 0)",
                                 missing="gpu")
    else:
        devs, why = probe_devices(hip)
        if not devs:
            choice = BackendChoice("emu", f"no ROCm GPU found: {why}; using the emulator")
            log.info("asmgen backend auto: %s", choice.reason)
            return choice
    want = arch_from_gcn_name(arch) if arch else None
    pool = [d for d in devs if device is None or d.index == device]
    if device is not None and not pool:
        msg = f"device {device} does not exist (HIP sees {len(devs)} device(s))"
        if backend == "hip":
            raise BackendError(msg)
        choice = BackendChoice("emu", f"{msg}; using the emulator", devices=tuple(devs))
        log.info("asmgen backend auto: %s", choice.reason)
        return choice
    fit = [d for d in pool if want is None or d.arch == want]
    if not fit:
        seen = ", ".join(d.gcn_arch_name for d in pool)
        msg = f"the kernel targets {arch} but the GPU(s) are {seen}"
        if backend == "hip":
            raise BackendError(msg)
        choice = BackendChoice("emu", f"{msg}; using the emulator", devices=tuple(devs))
        log.info("asmgen backend auto: %s", choice.reason)
        return choice
    dev = fit[0]
    how = "requested" if backend == "hip" else "auto"
    choice = BackendChoice("hip", f"backend {how}: GPU {dev.describe()}", dev, tuple(devs))
    log.info("asmgen backend: %s", choice.reason)
    return choice
