"""One explicit registry of instruction semantics per instruction format (a leaf: imports only errors).

A format's registry maps a mnemonic to a *binder* ``(instr) -> (machine, wave) -> None``, called once
per decoded instruction (isa.emu.program), so no operand dispatch happens per step. Handler modules
register into the registry of their format (``SOP.binder("s_waitcnt")``, ``VOP.alu(...)``); which
modules those are is listed once, in isa.emu.catalog. Registering a mnemonic twice (in one registry
or under the wrong format) is a ``DuplicateHandlerError`` / ``HandlerFormatError`` at import, never
"a later registration wins".

Formats are the encoding families of the CDNA3 ISA guide (chapter "Microcode formats"): SOP (SOP1,
SOP2, SOPK, SOPC, SOPP), SMEM, VOP (VOP1, VOP2, VOP3, VOPC, VOP3P with their DPP/SDWA forms), MAI
(VOP3P-MAI: MFMA and SMFMAC), DS, MUBUF, FLAT, GLOBAL, SCRATCH. ``format_of`` finds a mnemonic's
family from its name alone (the spec table's ``fmt`` agrees: tests/emu/test_registry.py), so an
instruction the tables do not list still finds its registry.
"""
from __future__ import annotations

from collections.abc import Callable

from .errors import EmulatorError

Bound = Callable[[object, object], None]


class RegistryError(EmulatorError):
    """Base of the registration errors (raised at import of a handler module)."""


class DuplicateHandlerError(RegistryError):
    """A mnemonic registered twice in its format's registry."""


class HandlerFormatError(RegistryError):
    """A mnemonic registered in the registry of a format it does not belong to."""


FORMATS = ("SOP", "SMEM", "VOP", "MAI", "DS", "MUBUF", "FLAT", "GLOBAL", "SCRATCH")
# The spec table's fmt -> family (isa.spec InstrSpec.fmt).
FAMILY = {"SOP1": "SOP", "SOP2": "SOP", "SOPK": "SOP", "SOPC": "SOP", "SOPP": "SOP",
          "SMEM": "SMEM", "VOP1": "VOP", "VOP2": "VOP", "VOP3": "VOP", "VOPC": "VOP",
          "VOP3P": "VOP", "MAI": "MAI", "DS": "DS", "MUBUF": "MUBUF", "MTBUF": "MUBUF",
          "FLAT": "FLAT", "GLOBAL": "GLOBAL", "SCRATCH": "SCRATCH"}
_SMEM_PREFIXES = ("s_load_", "s_buffer_", "s_store_", "s_atomic_", "s_scratch_", "s_dcache_",
                  "s_memtime", "s_memrealtime", "s_atc_probe")
_PREFIXES = (("v_mfma", "MAI"), ("v_smfmac", "MAI"), ("v_", "VOP"), ("ds_", "DS"),
             ("buffer_", "MUBUF"), ("tbuffer_", "MUBUF"), ("flat_", "FLAT"),
             ("global_", "GLOBAL"), ("scratch_", "SCRATCH"))


def format_of(mnemonic: str) -> str:
    """The format family of ``mnemonic`` (one of FORMATS), from its name."""
    if mnemonic.startswith("s_"):
        return "SMEM" if mnemonic.startswith(_SMEM_PREFIXES) else "SOP"
    for prefix, fmt in _PREFIXES:
        if mnemonic.startswith(prefix):
            return fmt
    raise HandlerFormatError(f"mnemonic {mnemonic!r} belongs to none of the formats {FORMATS}")


class Registry:
    """The binders of one format. ``binder`` registers ``(ins) -> bound``; ``handler`` registers a
    plain ``(machine, wave, ins)`` function (bound to its instruction once); ``context`` binders take
    ``(ins, spec, arch)`` (the MFMAs need the spec's shape)."""

    def __init__(self, fmt: str) -> None:
        if fmt not in FORMATS:
            raise RegistryError(f"format {fmt!r} is not one of {FORMATS}")
        self.fmt = fmt
        self._binders: dict[str, tuple[Callable, bool]] = {}
        self._group: set[str] = set()

    def _add(self, name: str, fn: Callable, context: bool, group: bool = False) -> None:
        if format_of(name) != self.fmt:
            raise HandlerFormatError(f"{name} is a {format_of(name)} instruction, registered in the "
                                     f"{self.fmt} registry")
        if name in self._binders:
            prev = self._binders[name][0]
            raise DuplicateHandlerError(
                f"{name} registered twice in the {self.fmt} registry: by "
                f"{getattr(prev, '__module__', '?')}.{getattr(prev, '__qualname__', '?')} and by "
                f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}")
        self._binders[name] = (fn, context)
        if group:
            self._group.add(name)

    def binder(self, *mnemonics: str, context: bool = False,
               group: bool = False) -> Callable[[Callable], Callable]:
        """Decorator: register the binder for each mnemonic. ``group``: the binder can also bind for
        a group of waves (isa.emu.group: under ``operand_io.group_binding`` it builds a function
        of a WaveGroup, or raises ``GroupUnsupported``)."""
        def deco(fn: Callable) -> Callable:
            for m in mnemonics:
                self._add(m, fn, context, group)
            return fn
        return deco

    def handler(self, *mnemonics: str) -> Callable[[Callable], Callable]:
        """Decorator: register a plain ``(machine, wave, ins)`` function for each mnemonic."""
        def deco(fn: Callable) -> Callable:
            def bind(ins, fn=fn):
                return lambda m, w: fn(m, w, ins)
            bind.__module__, bind.__qualname__ = fn.__module__, fn.__qualname__
            for m in mnemonics:
                self._add(m, bind, False)
            return fn
        return deco

    def register(self, names, make: Callable[[str], Callable]) -> None:
        """Register ``make(name)`` as the binder of every mnemonic in ``names``."""
        for name in names:
            self._add(name, make(name), False)

    def bind(self, ins, spec=None, arch: str = "gfx942") -> Bound | None:
        """The bound function of ``ins``, or None when this format has no semantics for it."""
        hit = self._binders.get(ins.op)
        if hit is None:
            return None
        fn, context = hit
        return fn(ins, spec, arch) if context else fn(ins)

    def groupable(self, mnemonic: str) -> bool:
        """Was ``mnemonic``'s binder registered as able to bind for a group of waves?"""
        return mnemonic in self._group

    def get(self, mnemonic: str) -> Callable | None:
        hit = self._binders.get(mnemonic)
        return None if hit is None else hit[0]

    def __contains__(self, mnemonic: str) -> bool:
        return mnemonic in self._binders

    def __len__(self) -> int:
        return len(self._binders)

    def names(self) -> list[str]:
        return sorted(self._binders)


SOP = Registry("SOP")
SMEM = Registry("SMEM")
VOP = Registry("VOP")
MAI = Registry("MAI")
DS = Registry("DS")
MUBUF = Registry("MUBUF")
FLAT = Registry("FLAT")
GLOBAL = Registry("GLOBAL")
SCRATCH = Registry("SCRATCH")
REGISTRIES: dict[str, Registry] = {r.fmt: r for r in (SOP, SMEM, VOP, MAI, DS, MUBUF, FLAT, GLOBAL,
                                                         SCRATCH)}


def registry_for(mnemonic: str) -> Registry:
    """The registry of ``mnemonic``'s format."""
    return REGISTRIES[format_of(mnemonic)]


def binder(*mnemonics: str, context: bool = False, group: bool = False) -> Callable[[Callable], Callable]:
    """Register in the registry of each mnemonic's own format (``format_of``); for table-driven
    groups that span formats (d16 loads of MUBUF, FLAT and SCRATCH). Still one registry each, and
    a duplicate is an error."""
    def deco(fn: Callable) -> Callable:
        for m in mnemonics:
            registry_for(m)._add(m, fn, context, group)
        return fn
    return deco


def handler(*mnemonics: str) -> Callable[[Callable], Callable]:
    """``Registry.handler`` into each mnemonic's own format registry."""
    def deco(fn: Callable) -> Callable:
        for m in mnemonics:
            registry_for(m).handler(m)(fn)
        return fn
    return deco


# Read/write register sets overriding the spec roles (isa.access) for the machine's pending and
# budget checks: mnemonic -> fn(instr) -> (reads, writes) as lists of register keys
# (isa.emu.regkeys). For semantics whose roles the spec table cannot express. A duplicate is an error.
class _RwSets(dict):
    def __setitem__(self, name: str, fn: Callable) -> None:
        if name in self:
            raise DuplicateHandlerError(f"read/write set of {name} registered twice")
        super().__setitem__(name, fn)


RW_SETS: dict[str, Callable] = _RwSets()
