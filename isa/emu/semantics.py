"""Registry of instruction semantics: ``@handler`` (mnemonic -> function(machine, wave, instr)) and
``@binder`` (mnemonic -> function(instr) -> function(machine, wave), bound once per decoded
instruction). ``load_all()`` imports the modules that register, so the registry is complete before
a program is decoded. A handler that does not change ``w.pc`` lets the machine advance it.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable

HANDLERS: dict[str, Callable] = {}
# Binders: mnemonic -> function(instr) -> function(machine, wave); resolved once per decoded
# instruction so no operand dispatch happens per step. EMU-CORE's memory/control modules use it;
# the ALU modules keep their own binder registry in isa.emu.operand_io (``alu_binders``).
CORE_BINDERS: dict[str, Callable] = {}
# Read/write register sets overriding the spec roles (isa.access) for the machine's pending and
# budget checks: mnemonic -> fn(instr) -> (reads, writes) as lists of register keys
# (isa.emu.program.reg_keys). For semantics whose roles the spec table cannot express; empty today.
RW_SETS: dict[str, Callable] = {}

# EMU-CORE's modules (binders for memory and control). Any other isa/emu module whose source uses
# ``@handler(`` is imported too (``_extra_modules``); the ALU binders come from
# ``isa.emu.operand_io.alu_binders`` (isa.emu.program). An instruction with no semantics at all is
# an UnknownInstructionError when it executes.
HANDLER_MODULES = (
    "isa.emu.control", "isa.emu.mem_buffer", "isa.emu.mem_global", "isa.emu.mem_lds",
    "isa.emu.mem_smem",
    # instruction groups added later, named here rather than found by the text scan below
    "isa.emu.salu_extra", "isa.emu.mem_smem_extra", "isa.emu.valu_misc", "isa.emu.mem_ds_extra",
    "isa.emu.mem_d16_extra", "isa.emu.mfma_sparse", "isa.emu.valu_scale_cvt",
)

_loaded = False


def handler(*mnemonics: str) -> Callable[[Callable], Callable]:
    """Register the decorated function for each mnemonic (a later registration wins)."""
    def deco(fn: Callable) -> Callable:
        for m in mnemonics:
            HANDLERS[m] = fn
        return fn
    return deco


def binder(*mnemonics: str) -> Callable[[Callable], Callable]:
    """Register the decorated binder ``(instr) -> (machine, wave) -> None`` for each mnemonic."""
    def deco(fn: Callable) -> Callable:
        for m in mnemonics:
            CORE_BINDERS[m] = fn
        return fn
    return deco


def load_all() -> dict[str, Callable]:
    """Import every handler module that exists (once) and return the registry."""
    global _loaded
    if not _loaded:
        for mod in HANDLER_MODULES:
            try:
                importlib.import_module(mod)
            except ModuleNotFoundError as e:
                if e.name != mod:   # the module exists but one of its imports is missing
                    raise
        _extra_modules()
        _loaded = True
    return HANDLERS


def _extra_modules() -> None:
    """Import any other isa/emu module whose source registers handlers (new ALU files)."""
    import pathlib
    here = pathlib.Path(__file__).parent
    for p in sorted(here.glob("*.py")):
        name = f"isa.emu.{p.stem}"
        if p.stem.startswith("_") or name in HANDLER_MODULES:
            continue
        try:
            text = p.read_text()
        except OSError:
            continue
        if "@handler(" in text:
            importlib.import_module(name)
