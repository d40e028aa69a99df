"""MFMA dispatch through the machine (numerics are EMU-MFMA's): registers in, D out, and the
MFMA result hazard enforced by the wait-state check."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa import mfma_layout
from isa.emu.errors import HazardError

NAME = "v_mfma_f32_16x16x16_f16"


def _regs():
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    c = rng.integers(-4, 5, (16, 16)).astype(np.float32)
    return a, b, c, mfma_layout.pack_a(NAME, a), mfma_layout.pack_b(NAME, b), mfma_layout.pack_c(NAME, c)


def _setup(ra, rb, rc):
    def setup(w):
        w.vgpr[0:2] = ra
        w.vgpr[2:4] = rb
        w.agpr[0:4] = rc
    return setup


TEXT = """
      v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]
      {nops}
      v_accvgpr_read_b32 v8, a0
      s_endpgm"""


def test_mfma_result_and_hazard():
    from isa.emu import Emulator
    a, b, c, ra, rb, rc = _regs()
    emu = Emulator()
    from isa.asm_parse import parse_program
    instrs, labels = parse_program(TEXT.format(nops="s_nop 6"))
    m = emu.run_program(instrs, labels, setup=_setup(ra, rb, rc))
    d = mfma_layout.unpack_d(NAME, m.waves[0].agpr[0:4])
    np.testing.assert_array_equal(d, a.astype(np.float32) @ b.astype(np.float32) + c)
    assert m.waves[0].vgpr[8][0] == m.waves[0].agpr[0][0]
    instrs, labels = parse_program(TEXT.format(nops="s_nop 5"))
    with pytest.raises(HazardError, match=r"needs 7 wait states after pc 0 'v_mfma_f32_16x16x16_f16"):
        emu.run_program(instrs, labels, setup=_setup(ra, rb, rc))


def test_mfma_srcc_zero_constant():
    a, b, _, ra, rb, _ = _regs()
    m = run("""
      v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], 0
      s_nop 7
      s_endpgm""", vgprs={0: ra[0], 1: ra[1], 2: rb[0], 3: rb[1]})
    d = mfma_layout.unpack_d(NAME, m.waves[0].vgpr[4:8])
    np.testing.assert_array_equal(d, a.astype(np.float32) @ b.astype(np.float32))


def test_hazard_names_the_nearest_producer():
    """Two MFMAs accumulate into a[0:3], then a VALU reads a0 at once: both producers are short
    of wait states (1 and 0 elapsed, 7 needed), and the error must name the newer one (pc 1), the
    result the read actually waits on, not the older MFMA at pc 0."""
    from isa.asm_parse import parse_program
    from isa.emu import Emulator
    a, b, c, ra, rb, rc = _regs()
    instrs, labels = parse_program("""
      v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]
      v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]
      v_accvgpr_read_b32 v8, a0
      s_endpgm""")
    with pytest.raises(HazardError, match=r"needs 7 wait states after pc 1 'v_mfma_f32_16x16x16_f16"
                                          r".*, got 0 ") as err:
        Emulator().run_program(instrs, labels, setup=_setup(ra, rb, rc))
    assert "after pc 0" not in str(err.value)
    # with the newer producer satisfied, the older one is the one named
    instrs, labels = parse_program("""
      v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]
      v_mfma_f32_16x16x16_f16 a[4:7], v[0:1], v[2:3], a[4:7]
      v_accvgpr_read_b32 v8, a0
      s_endpgm""")
    with pytest.raises(HazardError, match=r"after pc 0 'v_mfma_f32_16x16x16_f16 a\[0:3\].*got 1 "):
        Emulator().run_program(instrs, labels, setup=_setup(ra, rb, rc))
