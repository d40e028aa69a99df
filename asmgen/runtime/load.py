"""``load(kernel_or_json, backend=...)`` with a real backend switch: ``emu`` runs the emulator
runner of ``asmgen.runtime.emu``, ``hip`` the HIP runner of ``asmgen.runtime.hip_loader``, ``auto`` whichever
``select_backend`` picks. The runner gets ``backend`` and ``backend_reason`` attributes saying which
one runs and why.
"""
from __future__ import annotations

from typing import Any

from .backend import select_backend


def load(kernel_or_json: Any, backend: str = "emu", seed: int = 0, device: int | None = None,
         hip: Any = None, allow_hazards=()):
    """A runner (NumPy in, NumPy out) for a ``Kernel`` or a ``.json`` contract path.
    ``allow_hazards``: hazard rule names the emulator lets run on (counted; isa.emu.hazard_check)."""
    from .emu import EmuRunner, read_contract
    choice = select_backend(backend, hip=hip, device=device,
                            arch=_arch_of(kernel_or_json))
    meta, hsaco = read_contract(kernel_or_json)
    if choice.name == "hip":
        from .hip_loader import HipRunner
        runner = HipRunner(meta, hsaco, device=choice.device.index, hip=hip)
    else:
        runner = EmuRunner(meta, hsaco, seed, allow_hazards=allow_hazards)
    runner.backend = choice.name
    runner.backend_reason = choice.reason
    return runner


def _arch_of(src: Any) -> str | None:
    """The kernel's arch, read before the backend is chosen (``auto`` must not pick a GPU of
    another arch); None when the source is unreadable (``read_contract`` reports that)."""
    meta = getattr(src, "meta", None)
    if isinstance(meta, dict):
        return meta.get("arch")
    import json
    from pathlib import Path
    try:
        return json.loads(Path(src).read_text()).get("arch")
    except (OSError, ValueError, AttributeError, TypeError):
        return None
