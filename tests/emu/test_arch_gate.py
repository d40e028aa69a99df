"""Text programs are checked against the arch's instruction set (LLVM's opcode tables, the same
the decoder uses): an instruction of the other arch is refused before anything runs, exactly
as the hardware could not run it; the same text runs on the arch that has it."""
import pytest

from isa.emu import Emulator
from isa.emu.errors import UnknownInstructionError

GFX950_ONLY = """
  v_mov_b32 v0, 1
  v_mov_b32 v1, 2
  s_nop 4
  v_permlane32_swap_b32 v0, v1
  s_endpgm"""


def test_gfx950_instruction_refused_on_gfx942():
    with pytest.raises(UnknownInstructionError, match=r"pc 3: v_permlane32_swap_b32 does not exist on gfx942"):
        Emulator(arch="gfx942").run_program(GFX950_ONLY)


def test_gfx950_instruction_runs_on_gfx950():
    m = Emulator(arch="gfx950").run_program(GFX950_ONLY)
    w = m.waves[0]
    # the upper half of v0 swaps with the lower half of v1 (CDNA4 ISA, V_PERMLANE32_SWAP)
    assert int(w.vgpr[0][32]) == 2 and int(w.vgpr[1][0]) == 1
    assert int(w.vgpr[0][0]) == 1 and int(w.vgpr[1][32]) == 2


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_made_up_mnemonic_refused(arch):
    from isa.instr import Instr
    from isa.operands import v
    with pytest.raises(UnknownInstructionError, match="v_frobnicate_b32 does not exist"):
        Emulator(arch=arch).run_program([Instr("v_frobnicate_b32", (v(0), v(1)))])
