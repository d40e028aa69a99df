"""The emulator's handler registries (isa.emu.registry): one per instruction format, filled by the
modules isa.emu.catalog lists; a duplicate or a wrong-format registration is an error."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from isa.emu import catalog, registry
from isa.emu.registry import (
    FAMILY,
    FORMATS,
    REGISTRIES,
    DuplicateHandlerError,
    HandlerFormatError,
    Registry,
    format_of,
)
from isa.spec import ARCHES
from isa.tables import spec_table

EMU = Path(registry.__file__).parent


def test_duplicate_registration_is_an_error():
    r = Registry("VOP")
    r.binder("v_add_f32")(lambda ins: None)
    with pytest.raises(DuplicateHandlerError, match="v_add_f32 registered twice in the VOP registry"):
        r.binder("v_add_f32")(lambda ins: None)
    with pytest.raises(DuplicateHandlerError):
        r.handler("v_add_f32")(lambda m, w, ins: None)


def test_duplicate_against_the_loaded_registries_is_an_error():
    """A second module registering a mnemonic that is already known fails at import."""
    for name in ("s_waitcnt", "v_add_f32", "ds_read_b128", "global_load_dwordx4", "flat_load_dword",
                 "v_mfma_f32_32x32x8_f16"):
        assert name in registry.registry_for(name), name
        with pytest.raises(DuplicateHandlerError):
            registry.binder(name)(lambda ins: None)
    with pytest.raises(DuplicateHandlerError):
        catalog.RW_SETS["ds_nop"] = lambda ins: ([], [])


def test_wrong_format_registration_is_an_error():
    with pytest.raises(HandlerFormatError, match="flat_load_dword is a FLAT instruction"):
        Registry("GLOBAL").binder("flat_load_dword")(lambda ins: None)
    with pytest.raises(HandlerFormatError):
        Registry("SOP").binder("s_load_dword")(lambda ins: None)
    with pytest.raises(HandlerFormatError):
        format_of("foo_bar")


@pytest.mark.parametrize("arch", ARCHES)
def test_format_of_agrees_with_the_spec_table(arch):
    bad = [(sp.name, sp.fmt, format_of(sp.name)) for sp in spec_table(arch).values()
           if FAMILY[sp.fmt] != format_of(sp.name)]
    assert bad == []


def test_each_registry_holds_only_its_format():
    assert sorted(REGISTRIES) == sorted(FORMATS)
    for fmt, reg in REGISTRIES.items():
        assert len(reg) > 0, fmt
        assert all(format_of(n) == fmt for n in reg.names()), fmt


@pytest.mark.parametrize("arch", ARCHES)
def test_the_generator_vocabulary_has_semantics(arch):
    """Every mnemonic of the spec tables (what asmgen can emit) has a registered binder."""
    missing = sorted(sp.name for sp in spec_table(arch).values() if not catalog.has_semantics(sp.name))
    assert missing == []


def _registers(tree: ast.Module) -> bool:
    """Does a module call a registration (``binder(``, ``handler(``, ``alu(``, ``register(``,
    ``<REG>.binder(`` ...) at module level (decorators included)?"""
    names = {"binder", "handler", "alu", "register"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id in names) or \
                    (isinstance(f, ast.Attribute) and f.attr in names and isinstance(f.value, ast.Name)
                     and f.value.id in FORMATS):
                return True
    return False


def test_catalog_imports_every_registering_module():
    cat = ast.parse((EMU / "catalog.py").read_text())
    imported = {a.name for node in ast.walk(cat) if isinstance(node, ast.ImportFrom) and node.level == 1
                and node.module is None for a in node.names}
    registering = {p.stem for p in EMU.glob("*.py")
                   if p.stem not in ("registry", "operand_io", "catalog")
                   and _registers(ast.parse(p.read_text()))}
    assert registering - imported == set(), "handler modules catalog.py does not import"


def test_unknown_mnemonic_fails_when_executed_not_at_decode():
    from isa.instr import Instr
    fn = catalog.bind(Instr("ds_append", ()), None, "gfx942")

    class M:
        def error(self, cls, what, w):
            return cls(what)
    with pytest.raises(Exception, match="no emulator semantics for mnemonic 'ds_append'"):
        fn(M(), None)
