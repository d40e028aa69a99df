"""The waitcnt pass against LLVM's own: ``llc-22 -run-pass si-insert-waitcnts`` on straight-line
MIR with the same instructions (physical registers) must ask for the same s_waitcnt values."""
import re
import shutil
import subprocess

import pytest
from passkit import OFFEN, make_stream, new_kernel

from asmgen.passes.waitcnt import insert_waitcnts
from isa.instr import Instr
from isa.operands import Imm, s, v

LLC = shutil.which("llc-22")
pytestmark = pytest.mark.skipif(LLC is None, reason="llc-22 not installed")

SRD = "$sgpr0_sgpr1_sgpr2_sgpr3"


def _mir(lines: list[str]) -> str:
    body = "\n".join("    " + ln for ln in lines)
    return ("---\nname: test\ntracksRegLiveness: true\nmachineFunctionInfo:\n  isEntryFunction: true\n"
            "body: |\n  bb.0:\n    liveins: $vgpr0, $sgpr0_sgpr1_sgpr2_sgpr3, $sgpr4_sgpr5\n"
            f"{body}\n    S_ENDPGM 0\n...\n")


def _llvm_waits(lines: list[str], tmp_path) -> list[int]:
    """simm16 of the S_WAITCNT LLVM puts before each of ``lines`` (-1 = none)."""
    p = tmp_path / "t.mir"
    p.write_text(_mir(lines))
    out = subprocess.run([LLC, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-run-pass",
                          "si-insert-waitcnts", "-o", "-", str(p)], capture_output=True, text=True,
                         check=True).stdout
    body = out[out.index("bb.0:"):].splitlines()[2:]
    waits, pending = [], -1
    for ln in body:
        m = re.match(r"\s*S_WAITCNT (\d+)", ln)
        if m:
            pending = int(m.group(1))
        elif ln.strip() and not ln.strip().startswith("S_ENDPGM") and not ln.strip().startswith("..."):
            waits.append(pending)
            pending = -1
    return waits


def _our_waits(instrs: list[Instr]) -> list[int]:
    k = new_kernel()
    st = make_stream(k, instrs)
    insert_waitcnts(st)
    waits, pending = [], -1
    for n in st.prologue:
        if n.instr.op == "s_waitcnt":
            pending = n.instr.operands[0].value
        else:
            waits.append(pending)
            pending = -1
    return waits


def _bl(d: int) -> tuple[Instr, str]:
    return (Instr("buffer_load_dword", (v(d), v(0), s(0, 4), Imm(0)), OFFEN),
            f"$vgpr{d} = BUFFER_LOAD_DWORD_OFFEN $vgpr0, {SRD}, 0, 0, 0, 0, implicit $exec")


def _ds(d: int) -> tuple[Instr, str]:
    return (Instr("ds_read_b32", (v(d), v(0))),
            f"$vgpr{d} = DS_READ_B32 $vgpr0, 0, 0, implicit $m0, implicit $exec")


def _add(d: int, a: int, b: int) -> tuple[Instr, str]:
    return (Instr("v_add_u32", (v(d), v(a), v(b))),
            f"$vgpr{d} = V_ADD_U32_e32 $vgpr{a}, $vgpr{b}, implicit $exec")


def _mov(d: int) -> tuple[Instr, str]:
    return (Instr("v_mov_b32", (v(d), v(0))), f"$vgpr{d} = V_MOV_B32_e32 $vgpr0, implicit $exec")


CASES = {
    "vm_and_lds": [_bl(1), _bl(2), _ds(3), _ds(4), _add(5, 1, 3), _add(6, 2, 4)],
    "smem_store_war": [
        _ds(3),
        (Instr("s_load_dwordx2", (s(6, 2), s(4, 2), Imm(0))), "$sgpr6_sgpr7 = S_LOAD_DWORDX2_IMM $sgpr4_sgpr5, 0, 0"),
        _ds(4), _bl(1),
        (Instr("buffer_store_dword", (v(3), v(0), s(0, 4), Imm(0)), OFFEN),
         f"BUFFER_STORE_DWORD_OFFEN $vgpr3, $vgpr0, {SRD}, 0, 0, 0, 0, implicit $exec"),
        _bl(2), _add(5, 1, 0), _mov(1), _mov(2)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_waits_as_llvm(name, tmp_path):
    case = CASES[name]
    ours = _our_waits([i for i, _ in case])
    theirs = _llvm_waits([m for _, m in case], tmp_path)
    assert ours == theirs
    assert any(w != -1 for w in ours)
