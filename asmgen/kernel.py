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
        """Write ``<name>.s``, ``<name>.hsaco`` and ``<name>.json`` into ``directory``, all three or
        none (``asmgen.outputs.publish``: temporary names, then renames, the contract last; a
        different kernel of the same name is not replaced); returns the .json path."""
        from .outputs import publish
        paths = publish(directory, self.artifacts())
        return paths[-1]

    def artifacts(self) -> dict[str, bytes]:
        """File name -> bytes of the three outputs (the .json last); the contract records the
        sha256 of the code object written beside it (``asmgen.runtime.contract`` checks it)."""
        import hashlib
        meta = dict(self.meta)
        if self.hsaco:
            meta["hsaco_sha256"] = hashlib.sha256(bytes(self.hsaco)).hexdigest()
        return {f"{self.name}.s": self.asm.encode(), f"{self.name}.hsaco": bytes(self.hsaco),
                f"{self.name}.json": (json.dumps(meta, indent=1) + "\n").encode()}

    @property
    def resources(self) -> dict:
        return self.meta["resources"]
