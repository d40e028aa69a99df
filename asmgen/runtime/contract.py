"""Reading a launch contract (``DIR/<kernel>.json`` + ``DIR/<kernel>.hsaco``) and checking it for
self-consistency when it is loaded, before anything runs.

``read_contract(src)`` returns ``(meta, hsaco)`` for a ``Kernel`` or a contract path, or raises a
``ContractError`` (a ``ConfigError``: CLI exit 2) naming the file and the rule:
- the path: missing, a folder (the message lists the contracts inside), unreadable;
- the JSON: not JSON, not an object (``null``), the keys ``kernel`` / ``arch`` / ``grid`` /
  ``block`` / ``args`` missing or of the wrong type, ``args`` not a list of argument objects, an
  unknown dtype;
- the config: an object whose ``arch`` is the contract's (the config against the arguments is
  ``asmgen.kinds.consistency``, one layer up: it needs the kind registry; the API, ``check`` and
  ``profile`` run both);
- the code object: not empty, the sha256 the contract records (``hsaco_sha256``, when present:
  a truncated or bit-flipped file is refused), a readable ELF (``isa.codeobj``), its arch (e_flags)
  the contract's, the kernel symbol present, the metadata's kernarg size the contract's.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError, KernargError
from ..kernarg import as_args, kernarg_size

REQUIRED = {"kernel": str, "arch": str, "grid": list, "block": list, "args": list}


class ContractError(ConfigError):
    """A contract or its code object that is missing, malformed or inconsistent."""


def check_meta(meta: Any, where: str) -> dict:
    """Structure and self-consistency of a contract object (module doc); returns it."""
    if not isinstance(meta, dict):
        raise ContractError(f"{where}: the contract is {json.dumps(meta)[:40]}, not a JSON object")
    for key, typ in REQUIRED.items():
        if key not in meta:
            raise ContractError(f"{where}: the contract lacks the key {key!r}")
        if not isinstance(meta[key], typ):
            raise ContractError(f"{where}: the contract's {key!r} is {type(meta[key]).__name__}, "
                                f"not a {typ.__name__}")
    for key in ("grid", "block"):
        v = meta[key]
        if len(v) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v):
            raise ContractError(f"{where}: the contract's {key} {v!r} is not three integers >= 1")
    try:
        args = as_args(meta["args"])
    except KernargError as exc:
        raise ContractError(f"{where}: {exc}") from None
    config = meta.get("config")
    if config is not None and not isinstance(config, dict):
        raise ContractError(f"{where}: the contract's config is {type(config).__name__}, not an "
                            "object")
    if config and "arch" in config and config["arch"] != meta["arch"]:
        raise ContractError(f"{where}: config.arch {config['arch']!r} is not the contract's arch "
                            f"{meta['arch']!r}")
    return meta


def check_code_object(meta: dict, hsaco: bytes, where: str) -> None:
    """The code object against the contract (module doc)."""
    if not hsaco:
        raise ContractError(f"{where}: the code object is empty (0 bytes)")
    want = meta.get("hsaco_sha256")
    if want is not None and hashlib.sha256(hsaco).hexdigest() != want:
        raise ContractError(f"{where}: the code object's sha256 is not the one the contract "
                            f"records ({str(want)[:16]}...): it was truncated, altered or replaced")
    from isa.codeobj import CodeObject
    from isa.errors import IsaError
    try:
        co = CodeObject.from_bytes(bytes(hsaco))
        arch = co.arch
        kernels = co.kernels
    except (IsaError, ValueError, IndexError, KeyError) as exc:   # struct errors of a damaged ELF
        raise ContractError(f"{where}: the code object is not a readable AMDGPU ELF: {exc}") from None
    if arch != meta["arch"]:
        raise ContractError(f"{where}: the code object is for {arch}, the contract says {meta['arch']}")
    if meta["kernel"] not in kernels:
        raise ContractError(f"{where}: the code object has no kernel {meta['kernel']!r} "
                            f"(it has {sorted(kernels)})")
    size = kernels[meta["kernel"]].metadata.get(".kernarg_segment_size")
    need = kernarg_size(meta["args"])
    if isinstance(size, int) and size < need:
        raise ContractError(f"{where}: the code object's kernarg segment is {size} bytes, the "
                            f"contract's arguments need {need}")


def read_contract(src: Any, check=None) -> tuple[dict, bytes]:
    """``(meta, hsaco)`` of a ``Kernel`` or a ``.json`` path, every check of the module doc done;
    ``check(meta, where)`` (if given) runs after the contract's and before the code object's."""
    if hasattr(src, "meta") and hasattr(src, "hsaco"):
        return src.meta, src.hsaco
    path = Path(src)
    meta = read_json(path)
    check_meta(meta, str(path))
    if check is not None:
        check(meta, str(path))
    hsaco_path = path.with_suffix(".hsaco")
    if not hsaco_path.is_file():
        raise ContractError(f"{path}: the code object {hsaco_path} is missing")
    hsaco = hsaco_path.read_bytes()
    check_code_object(meta, hsaco, str(hsaco_path))
    return meta, hsaco


def read_json(path: str | Path) -> Any:
    """The parsed JSON of a contract path: a folder, a missing file or bad JSON is a
    ``ContractError`` naming it (the folder's message lists the contracts inside)."""
    path = Path(path)
    if path.is_dir():
        found = sorted(p.name for p in path.glob("*.json"))[:5]
        hint = f" (it holds {', '.join(found)})" if found else " (it holds no .json contract)"
        raise ContractError(f"{str(path)!r} is a folder; give DIR/<kernel>.json{hint}")
    if not path.is_file():
        raise ContractError(f"kernel contract {str(path)!r} does not exist")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ContractError(f"{path}: cannot read it as text ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContractError(f"{path} is not valid JSON: {exc}") from None
