"""The pass pipeline end to end on a small looped kernel: stage order, dump hooks, a verified
stream on physical registers that llvm-mc accepts."""
import shutil
import subprocess

import pytest

from asmgen.ir import KernelIR, VReg
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.passes.manager import compile_kernel
from asmgen.passes.regalloc import RegisterBudgetError
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm, Reg, s, v
from isa.waitcnt_enc import format_waitcnt

OFFEN = (("offen", True),)


def build(arch: str = "gfx942") -> KernelIR:
    k = KernelIR(target_of(arch), "t", tags=GEMM_TAGS)
    kp = k.precolored("s", s(0, 2), "kernarg")
    tid = k.precolored("v", v(0), "tid")
    srd, cnt, off = k.vreg("s", 4), k.vreg("s"), k.vreg("v")
    acc = k.vreg("a", 16)
    p = k.prologue
    p.add(Instr("s_load_dwordx4", (srd, kp, Imm(0))), {"addr"})
    p.add(Instr("s_mov_b32", (cnt, Imm(4))), {"addr"})
    for i in range(16):
        p.add(Instr("v_accvgpr_write_b32", (acc.sub(i), Imm(0))))
    p.add(Instr("v_lshlrev_b32", (off, Imm(4), tid)), {"addr"})
    b = k.make_loop(cnt, "loop_k")
    x, y = k.vreg("v", 4), k.vreg("v", 4)
    b.add(Instr("buffer_load_dwordx4", (x, off, srd, Imm(0)), OFFEN), {"gr_a"})
    b.add(Instr("ds_write_b128", (off, x)), {"lw_a"}, lds_write="A")
    b.add(Instr("s_barrier"), {"barrier"})
    b.add(Instr("ds_read_b128", (y, off)), {"lr_a"}, lds_read="A")
    b.add(Instr("v_mfma_f32_32x32x8_f16", (acc, y.sub(0, 2), y.sub(2, 2), acc)), {"mfma"})
    b.add(Instr("s_barrier"), {"barrier"})
    o = k.vreg("v", 4)
    for i in range(4):
        k.epilogue.add(Instr("v_accvgpr_read_b32", (o.sub(i), acc.sub(i))))
    k.epilogue.add(Instr("buffer_store_dwordx4", (o, off, srd, Imm(0)), OFFEN), {"store"})
    k.lds_bytes = 1024
    return k


def _lines(items):
    out = []
    for it in items:
        if isinstance(it, str):
            out.append(f"{it}:")
        elif it.op == "s_waitcnt":
            out.append("  s_waitcnt " + format_waitcnt(it.operands[0].value))
        else:
            out.append(f"  {it}")
    return out


def test_pipeline_stages_and_result():
    stages = []
    c = compile_kernel(build(), dump=lambda name, prog: stages.append(name))
    assert stages == ["schedule", "waitcnt", "regalloc", "hazards", "verify"]
    items = c.items()
    assert "loop_k" in items and items[-1].op == "s_endpgm"
    instrs = [i for i in items if not isinstance(i, str)]
    assert not any(isinstance(o, VReg) for i in instrs for o in i.operands)
    text = "\n".join(_lines(items))
    assert "s_waitcnt lgkmcnt(0)\n  s_barrier" in text            # LDS writes published
    assert "s_nop 6\n  v_accvgpr_read_b32" in text                 # MFMA -> read after the loop
    assert c.allocation.regs[1] == v(0) and c.allocation.used["a"] == 16


@pytest.mark.skipif(shutil.which("llvm-mc-22") is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_output_assembles(arch):
    lines = _lines(compile_kernel(build(arch)).items())
    r = subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-filetype=null"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_budget_error_from_the_pipeline():
    with pytest.raises(RegisterBudgetError) as ei:
        compile_kernel(build(), limits={"a": 8})
    assert ei.value.file == "a" and ei.value.need == 16 and ei.value.limit == 8


def test_physical_registers_in_instrs_are_reserved():
    k = build()
    k.prologue.add(Instr("v_mov_b32", (Reg("v", 1), Imm(3))))
    k.epilogue.add(Instr("v_mov_b32", (v(2), Reg("v", 1))))
    c = compile_kernel(k)
    for vid, reg in c.allocation.regs.items():
        if reg.file == "v" and vid != 1:
            assert not reg.overlaps(Reg("v", 1))
