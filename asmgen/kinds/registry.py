"""The kernel-kind registry: ``register(kind)``, ``get(name)``, ``all_kinds()``, ``of_config(cfg)``.

This is the only place a kind is found by its name (the contract's ``config.kind``, the CLI
subcommand); everything else asks the registry. The built-in kinds are the modules named in
``BUILTIN`` (imported by name on the first lookup, each registering its kind when imported), so
this module imports no kind and a kind module may import it to register itself: a new kind is
one folder plus one ``register(...)`` line (tests/toy_kind shows one). A second registration of
a name is an error.
"""
from __future__ import annotations

import importlib

from ..errors import ConfigError
from .base import KernelKind

BUILTIN = ("asmgen.kinds.gemm.kind", "asmgen.kinds.attention.kind")

_KINDS: dict[str, KernelKind] = {}
_builtin_loaded = False


class DuplicateKind(ValueError):
    """Two kinds registered under one name."""


class UnknownKind(ConfigError):
    """A kind name (CLI, contract ``config.kind``) nobody registered; the message lists the known."""


def register(kind: KernelKind) -> KernelKind:
    """Add ``kind`` (an instance); a name registered twice raises ``DuplicateKind``."""
    if not isinstance(kind, KernelKind) or not kind.name:
        raise TypeError(f"{kind!r} is not a named KernelKind instance")
    if kind.name in _KINDS:
        raise DuplicateKind(f"kernel kind {kind.name!r} is registered twice "
                            f"({_KINDS[kind.name]!r} and {kind!r})")
    _KINDS[kind.name] = kind
    return kind


def _load_builtin() -> None:
    global _builtin_loaded
    if not _builtin_loaded:
        _builtin_loaded = True
        for mod in BUILTIN:
            importlib.import_module(mod)


def get(name) -> KernelKind:
    """The kind called ``name`` (a ``KernelKind`` passes through)."""
    if isinstance(name, KernelKind):
        return name
    _load_builtin()
    kind = _KINDS.get(name)
    if kind is None:
        raise UnknownKind(f"kernel kind {name!r} is not registered (known: {sorted(_KINDS)})")
    return kind


def all_kinds() -> list[KernelKind]:
    """Every registered kind, built-in ones first, in registration order."""
    _load_builtin()
    return list(_KINDS.values())


def names() -> list[str]:
    return [k.name for k in all_kinds()]


def of_config(cfg) -> KernelKind:
    """The kind whose ``config_type`` ``cfg`` is."""
    for kind in all_kinds():
        if isinstance(cfg, kind.config_type):
            return kind
    raise UnknownKind(f"{type(cfg).__name__} is the config of no registered kernel kind "
                      f"(known: {names()})")


def of_contract(meta: dict) -> KernelKind:
    """The kind of a launch contract (its ``config.kind``)."""
    kind = (meta.get("config") or {}).get("kind") if isinstance(meta, dict) else None
    return get(kind)
