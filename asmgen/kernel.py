"""``Kernel``: what generating a kernel of any kind produces: the assembly text, the code object
bytes and the .json launch contract (design.md "Contracts"); ``.save(dir)`` writes
``<name>.s/.hsaco/.json``."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Kernel:
    """A generated kernel: assembly text, code object and launch contract."""

    name: str
    asm: str
    hsaco: bytes
    meta: dict
    config: Any = None
    timings: dict = field(default_factory=dict)
    compiled: Any = field(default=None, repr=False, compare=False)   # the passes' result

    def save(self, directory: str | Path) -> Path:
        """Write ``<name>.s``, ``<name>.hsaco`` and ``<name>.json`` into ``directory``; returns the
        .json path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{self.name}.s").write_text(self.asm)
        (d / f"{self.name}.hsaco").write_bytes(self.hsaco)
        path = d / f"{self.name}.json"
        path.write_text(json.dumps(self.meta, indent=1) + "\n")
        return path

    @property
    def resources(self) -> dict:
        return self.meta["resources"]
