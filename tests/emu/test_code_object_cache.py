"""Kernels of one code object share its parse (isa.emu.launch._CODE_OBJECTS): a fuzz batch
launches up to 16 kernels from one shared object, each was parsed again (~1.5 ms)."""
from __future__ import annotations

from hand_kernel import assemble, kernel_text, needs_mc

from isa import codeobj
from isa.emu import Emulator, launch

pytestmark = needs_mc

DIRS = ".amdhsa_next_free_vgpr 4\n.amdhsa_next_free_sgpr 8\n.amdhsa_accum_offset 4"


def test_two_kernels_of_one_object_parse_it_once(monkeypatch):
    second = kernel_text("  s_nop 0\n  s_endpgm", DIRS, name="b")
    hs = assemble(kernel_text("  s_endpgm", DIRS, name="a")
                  + second.split(".amdhsa_code_object_version 5\n", 1)[1])
    parses = []
    real = codeobj.CodeObject.from_bytes.__func__

    def counting(cls, data):
        parses.append(len(data))
        return real(cls, data)
    monkeypatch.setattr(codeobj.CodeObject, "from_bytes", classmethod(counting))
    monkeypatch.setattr(launch, "_CODE_OBJECTS", {})
    monkeypatch.setattr(launch, "_PROGRAMS", {})
    emu = Emulator(arch="gfx942")
    emu.launch(hs, "a")
    emu.launch(hs, "b")
    assert emu.steps == 1 + 2            # each kernel's own code ran
    assert len(parses) == 1
