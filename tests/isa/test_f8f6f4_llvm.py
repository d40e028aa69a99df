"""gfx950 f8f6f4 MFMAs against LLVM 22: every form (shape x scaled x A format x B format) assembles
with the register counts isa.mfma_shapes.operand_regs gives and not with others; the scale byte
selects LLVM encodes decode back to the same op_sel/op_sel_hi, and LLVM's bytes run on the
emulator to the NumPy reference with the byte each select names."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from llvm_text import assemble

from isa.decode import decode
from isa.emu import Emulator
from isa.mfma_layout import pack_a, pack_b, unpack_d
from isa.mfma_shapes import operand_regs

NAMES = ("v_mfma_f32_16x16x128_f8f6f4", "v_mfma_f32_32x32x64_f8f6f4",
         "v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_32x32x64_f8f6f4")
CD = {"16x16x128": 4, "32x32x64": 16}


def _line(name: str, ra: int, rb: int, cbsz: int, blgp: int, sel=(0, 0)) -> str:
    cd = CD[name.split("_")[-2]]
    text = f"{name} v[0:{cd - 1}], v[16:{15 + ra}], v[32:{31 + rb}], v[0:{cd - 1}]"
    if "scale" in name:
        text += f", v48, v49 op_sel:[{sel[0] & 1},{sel[1] & 1},0] op_sel_hi:[{sel[0] >> 1},{sel[1] >> 1},0]"
    return text + f" cbsz:{cbsz} blgp:{blgp}"


def test_every_format_pair_assembles_with_the_table_register_counts(llvm_mc):
    good, bad = [], []
    for name in NAMES:
        for cbsz in range(5):
            for blgp in range(5):
                ra, rb = operand_regs(name, cbsz, blgp)
                good.append(_line(name, ra, rb, cbsz, blgp, (cbsz % 4, blgp % 4)))
                wrong = {8: 6, 6: 4, 4: 8}
                bad.append(_line(name, wrong[ra], rb, cbsz, blgp))
                bad.append(_line(name, ra, wrong[rb], cbsz, blgp))
    encs, errors = assemble(llvm_mc, "gfx950", good)
    assert not errors, {good[i]: e for i, e in errors.items()}
    for line, enc in zip(good, encs):
        assert len(enc) == (16 if "scale" in line else 8), line
    _, errors = assemble(llvm_mc, "gfx950", bad)
    assert sorted(errors) == list(range(len(bad))), [bad[i] for i in range(len(bad)) if i not in errors]


def test_llvm_rejects_sgpr_and_constant_scales(llvm_mc):
    """LLVM restricts the scale operands to VGPRs (PR #158117); the emulator still gives SGPR and
    inline-constant scales the hardware's bits [30:23] meaning (tests/emu/test_mfma_scaled.py)."""
    base = "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[16:23], v[32:39], v[0:3], "
    _, errors = assemble(llvm_mc, "gfx950", [base + "s4, v49", base + "v48, 1.0", base + "v48, v49"])
    assert sorted(errors) == [0, 1]


@pytest.mark.parametrize("sel_a,sel_b", [(0, 0), (1, 2), (3, 1), (2, 3)])
def test_llvm_bytes_decode_and_run_with_the_selected_scale_bytes(llvm_mc, sel_a, sel_b):
    name = "v_mfma_scale_f32_16x16x128_f8f6f4"
    line = _line(name, 8, 4, 0, 4, (sel_a, sel_b))
    (enc,), errors = assemble(llvm_mc, "gfx950", [line])
    assert not errors
    (ins,) = decode(bytes(enc) + bytes([0x00, 0x00, 0x81, 0xbf]), "gfx950")[:1]
    assert ins.instr.op == name and ins.size == 16
    lo, hi = ins.instr.mod("op_sel", (0, 0, 0)), ins.instr.mod("op_sel_hi", (0, 0, 0))
    assert (lo[0] + 2 * hi[0], lo[1] + 2 * hi[1]) == (sel_a, sel_b)
    prog = decode(bytes(enc) + bytes.fromhex("070080bf" "070080bf" "000081bf"), "gfx950")
    rng = np.random.default_rng(sel_a * 4 + sel_b)
    small = np.array([0, 0.5, 1, 1.5, 2, 3, -1, -2, -4, 6])
    a = rng.choice(small, (16, 128)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.choice(small, (128, 16)).astype(ml_dtypes.float4_e2m1fn)
    ra, rb = pack_a(name, a), pack_b(name, b)
    sbytes = rng.integers(124, 131, (2, 4, 64)).astype(np.uint32)
    sregs = (sbytes << (8 * np.arange(4, dtype=np.uint32))[None, :, None]).sum(1).astype(np.uint32)

    def setup(w):
        w.vgpr[16:24], w.vgpr[32:36] = ra, rb
        w.vgpr[0:4] = 0
        w.vgpr[48], w.vgpr[49] = sregs

    m = Emulator(arch="gfx950").run_program([p.instr for p in prog], {}, setup=setup)
    d = unpack_d(name, m.waves[0].vgpr[0:4])
    sa = np.exp2(sbytes[0, sel_a].astype(float) - 127)   # lane i + 16 kb: row i, K-block kb
    sb = np.exp2(sbytes[1, sel_b].astype(float) - 127)
    av = a.astype(float) * np.repeat(sa.reshape(4, 16).T, 32, axis=1)
    bv = b.astype(float) * np.repeat(sb.reshape(4, 16), 32, axis=0)
    np.testing.assert_array_equal(d, (av @ bv).astype(np.float32))
