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

BUILTIN = ("asmgen.kinds.gemm.kind", "asmgen.kinds.attention.kind", "asmgen.kinds.decode.kind",
           "asmgen.kinds.decode.combine.kind", "asmgen.kinds.extend.kind")

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
    """The kind called ``name`` (a ``KernelKind`` passes through). A built-in kind whose package
    names it (``NAME``) is imported alone: ``asmgen gemm`` does not import attention."""
    if isinstance(name, KernelKind):
        return name
    kind = _KINDS.get(name)
    if kind is None and not _builtin_loaded:
        for mod in BUILTIN:
            if getattr(importlib.import_module(mod.rpartition(".")[0]), "NAME", None) == name:
                importlib.import_module(mod)
        kind = _KINDS.get(name)
    if kind is None:
        _load_builtin()
        kind = _KINDS.get(name)
    if kind is None:
        raise UnknownKind(f"kernel kind {name!r} is not registered (known: {sorted(_KINDS)})")
    return kind


def all_kinds() -> list[KernelKind]:
    """Every registered kind: the built-in ones first (in ``BUILTIN`` order, whichever was
    imported first), then the others in registration order."""
    _load_builtin()
    builtin = [m.rpartition(".")[0] for m in BUILTIN]

    def rank(k: KernelKind) -> int:
        mod = type(k).__module__.rpartition(".")[0]
        return builtin.index(mod) if mod in builtin else len(builtin)
    return sorted(_KINDS.values(), key=rank)      # stable: registration order within a rank


def listing() -> list[tuple[str, str]]:
    """(name, help) of every kind without importing the built-in kinds' modules when their
    packages state ``NAME`` and ``HELP`` (``asmgen --help`` lists the subcommands from this);
    kinds registered otherwise are listed as registered."""
    out: dict[str, str] = {}
    if not _builtin_loaded:
        for mod in BUILTIN:
            pkg = importlib.import_module(mod.rpartition(".")[0])
            if not (isinstance(getattr(pkg, "NAME", None), str) and hasattr(pkg, "HELP")):
                return [(k.name, k.help) for k in all_kinds()]
            out[pkg.NAME] = pkg.HELP
    for k in _KINDS.values():
        out.setdefault(k.name, k.help)
    return list(out.items())


def modes(family: str) -> dict[str, str]:
    """mode -> kind name of the kinds reached as ``asmgen FAMILY --mode MODE`` (their
    ``mode_of``), from the built-in packages' ``MODE_OF`` without importing their kinds, plus
    the registered kinds that state one."""
    out: dict[str, str] = {}
    for mod in BUILTIN:
        pkg = importlib.import_module(mod.rpartition(".")[0])
        fam = getattr(pkg, "MODE_OF", None)
        if fam is not None and fam[0] == family:
            out[fam[1]] = pkg.NAME
    for k in _KINDS.values():
        if k.mode_of is not None and k.mode_of[0] == family:
            out.setdefault(k.mode_of[1], k.name)
    return out


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
