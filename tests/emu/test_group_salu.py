"""Scalar and control instructions for a group of waves at one pc (isa.emu.salu_group, the group
forms in isa.emu.branch and isa.emu.control): every SALU mnemonic of the spec tables that binds
for a group gives, for members with different SGPRs, SCC, EXEC and M0, in slot order and
scattered, the same SGPRs, SCC, EXEC and M0 as its per-wave binding run on each wave alone;
branches send each member its own way; and loops whose SALU, branches and waits run as group
steps give the bytes and step counts of waves stepping alone."""
from __future__ import annotations

import random

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import catalog, salu_group
from isa.emu.group import WaveGroup, WorkgroupFiles
from isa.emu.machine import Machine
from isa.emu.pool import Pool
from isa.emu.state import Wave
from isa.instr import Instr
from isa.operands import Imm, Reg, Special
from isa.spec import ARCHES
from isa.tables import spec_table

EXECS = ((1 << 64) - 1, 0x00FF00FF12345678, 0, 0xFFFFFFFF00000001, (1 << 64) - 1)


class _M:
    def __init__(self, arch):
        self.arch = arch

    def error(self, cls, what, w=None, **kw):
        return cls(what)


def _operands(spec, variant: int):
    """Operands of a scalar instruction: SGPR destinations s40+, sources s8, s12 (variant 1: an
    inline constant first source, 2: a literal last source, 3: EXEC / M0 / VCC where allowed)."""
    ops, srcs = [], [i for i, o in enumerate(spec.operands) if o.role == "src"]
    for i, o in enumerate(spec.operands):
        if "s" not in o.kinds and "i" not in o.kinds:
            return None
        if o.role != "src":
            if variant == 3 and "x" in o.kinds:
                ops.append(Special("exec") if o.width == 2 else Special("m0"))
            else:
                ops.append(Reg("s", 40 + 4 * len(ops), o.width))
            continue
        if variant == 1 and i == srcs[0] and "i" in o.kinds:
            ops.append(Imm(-7))
        elif variant == 2 and i == srcs[-1] and ("l" in o.kinds or "i" in o.kinds):
            ops.append(Imm(0x1234 if "s" not in o.kinds else 0x12345))
        elif variant == 3 and i == srcs[0] and "x" in o.kinds:
            ops.append(Special("vcc") if o.width == 2 else Special("m0"))
        elif variant == 3 and i == srcs[-1] and "x" in o.kinds and o.width == 2:
            ops.append(Special("exec"))
        elif "s" in o.kinds:
            ops.append(Reg("s", 8 + 4 * srcs.index(i), o.width))
        else:
            ops.append(Imm(5))
    return tuple(ops)


def _waves(seed: int, n: int = 5):
    rng = np.random.default_rng(seed)
    waves = []
    for k in range(n):
        w = Wave(k)
        w.sgpr[:] = rng.integers(0, 1 << 32, w.sgpr.shape, dtype=np.uint32)
        w.sgpr[8 + 2 * k % 6] = k % 3          # small values and zeros: shifts, compares, SCC
        w.set_exec(EXECS[k % len(EXECS)])
        w.scc = k % 2
        w.m0 = int(rng.integers(0, 1 << 32))
        waves.append(w)
    return waves


def _state(w):
    return (w.sgpr.tobytes(), w.scc, w.exec, w.m0)


def _cases(arch):
    for name, sp in sorted(spec_table(arch).items()):
        if not name.startswith("s_") or not catalog.groupable(name) or sp.fmt == "SOPP":
            continue
        seen = set()
        for variant in (0, 1, 2, 3):
            ops = _operands(sp, variant)
            if ops is not None and ops not in seen:
                seen.add(ops)
                yield name, sp, Instr(name, ops)


def _compare(ins, spec, arch, slots, seed):
    gfn = catalog.bind_group(ins, spec, arch)
    if gfn is None:
        return False
    fn = catalog.bind(ins, spec, arch)
    ref, got = _waves(seed), _waves(seed)
    m = _M(arch)
    for k in slots:
        fn(m, ref[k])
    gfn(m, WaveGroup(WorkgroupFiles(got), [got[k] for k in slots]))
    for k in range(len(ref)):
        assert _state(ref[k]) == _state(got[k]), (str(ins), k)
    return True


@pytest.mark.parametrize("column_min", [1, 99])
@pytest.mark.parametrize("arch", [a if a == "gfx942" else pytest.param(a, marks=pytest.mark.slow)
                                  for a in ARCHES])     # one SALU semantics for both: gfx950 slow
def test_every_group_bound_salu_op_matches_the_per_wave_op(arch, column_min, monkeypatch):
    """Both ways of a group form: the SGPR-column form (every group size here reaches a
    ``COLUMN_MIN`` of 1) and the per-wave function for each member (none reaches 99)."""
    monkeypatch.setattr(salu_group, "COLUMN_MIN", column_min)
    ran, names = 0, set()
    for name, sp, ins in _cases(arch):
        try:
            catalog.bind(ins, sp, arch)(_M(arch), _waves(0)[0])
        except Exception:  # noqa: BLE001, S112 - an operand form the per-wave op refuses too
            continue
        if _compare(ins, sp, arch, [0, 1, 2, 3, 4], 0) and _compare(ins, sp, arch, [3, 0, 4], 1):
            ran += 1
            names.add(name)
    # SOP1/SOP2/SOPC/SOPK: every form listed in isa.emu.salu binds for groups
    assert {"s_add_u32", "s_addc_u32", "s_lshl_b64", "s_cmp_lg_u32", "s_cselect_b64",
            "s_and_saveexec_b64", "s_movk_i32", "s_cmpk_lg_u32", "s_mov_b64", "s_bfe_u32"} <= names
    assert ran > 150


BRANCH = """
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc1 L_taken
      s_mov_b32 s1, 1
    L_taken:
      s_endpgm"""


@pytest.mark.parametrize("name,field", [("s_cbranch_scc1", "scc"), ("s_cbranch_scc0", "scc"),
                                        ("s_cbranch_vccz", "vcc"), ("s_cbranch_execnz", "exec"),
                                        ("s_branch", None)])
def test_a_group_branch_sends_each_member_its_own_way(name, field):
    from isa.asm_parse import parse_program
    from isa.emu import Emulator
    text = BRANCH.replace("s_cbranch_scc1", name)
    prog = Emulator().program(*parse_program(text))
    waves = [Wave(i) for i in range(5)]
    for k, w in enumerate(waves):
        w.pc = 1
        w.scc = k % 2
        w.vcc = 0 if k % 3 == 0 else 1 << k
        w.set_exec(0 if k == 2 else 1 << k)
    m = Machine(prog, waves, None, 0, rng=random.Random(0))
    e = prog.entries[1]
    gfn = catalog.bind_group(e.instr, e.spec, "gfx942")
    cond = {"s_cbranch_scc1": lambda w: w.scc != 0, "s_cbranch_scc0": lambda w: w.scc == 0,
            "s_cbranch_vccz": lambda w: w.vcc == 0, "s_cbranch_execnz": lambda w: w.exec != 0,
            "s_branch": lambda w: True}[name]
    want = [3 if cond(w) else 2 for w in waves]
    assert len(set(want)) == (1 if field is None else 2)    # the members disagree (but s_branch)
    assert gfn(m, WaveGroup(WorkgroupFiles(waves), [waves[k] for k in (4, 1, 0, 3, 2)])) is True
    assert [w.pc for w in waves] == want
    assert m._jump is False


# SALU address arithmetic, SMEM, branches, waits and buffer ops in a loop: from its third group
# step on every scalar and control instruction of the body runs as a group operation
LOOP = """
      s_load_dword s20, s[0:1], 0x0
      s_mov_b32 s30, 0
      s_waitcnt lgkmcnt(0)
    L_loop:
      s_mul_i32 s22, s20, s30
      s_add_u32 s23, s22, s12
      s_addc_u32 s24, 0, 0
      s_max_i32 s25, s23, 100
      s_lshl_b32 s26, s12, 8
      s_lshl_b32 s27, s30, 10
      s_add_u32 s26, s26, s27
      v_lshlrev_b32 v1, 2, v0
      v_add_u32 v1, s26, v1
      buffer_load_dword v2, v1, s[4:7], 0 offen
      s_waitcnt vmcnt(0)
      v_add_u32 v3, v2, s25
      buffer_store_dword v3, v1, s[8:11], 0 offen
      s_nop 0
      s_add_u32 s30, s30, 1
      s_cmp_lg_u32 s30, 4
      s_cbranch_scc1 L_loop
      s_waitcnt vmcnt(0)
      s_barrier
      s_endpgm"""


def _run_loop(split: float, seed: int, monkeypatch, n_waves: int = 4):
    from isa.emu import Emulator
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    emu = Emulator(seed=seed)
    n = 4 * 64 * n_waves * 4
    src = np.arange(n // 4, dtype=np.uint32).view(np.uint8)
    dst = np.zeros(n, np.uint8)
    a_src, a_dst = emu.alloc(src), emu.alloc(dst)
    word = np.array([5], np.uint32)
    a_word = emu.alloc(word)
    m = run(LOOP, emu=emu, n_waves=n_waves, seed=seed,
            sgprs={0: [a_word & 0xFFFFFFFF, a_word >> 32], 4: srd(a_src, src.size),
                   8: srd(a_dst, dst.size), 12: lambda i: i},
            vgprs={0: np.arange(64)})
    return m, dst.view(np.uint32).copy()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scalar_group_steps_match_waves_stepping_alone(seed, monkeypatch):
    bound: set = set()
    inner = Pool._group_step

    def spy(self, members, e, *a):
        out = inner(self, members, e, *a)
        if e.gfn is not None:
            bound.add(e.instr.op)
        return out
    monkeypatch.setattr(Pool, "_group_step", spy)
    alone, out_alone = _run_loop(1.0, seed, monkeypatch)    # split 1: every wave steps alone
    assert not bound
    lock, out_lock = _run_loop(0.0, seed, monkeypatch)      # split 0: lockstep group steps
    assert {"s_mul_i32", "s_add_u32", "s_addc_u32", "s_max_i32", "s_lshl_b32", "s_cmp_lg_u32",
            "s_cbranch_scc1", "s_waitcnt", "s_nop"} <= bound
    assert lock.steps == alone.steps
    assert out_lock.tobytes() == out_alone.tobytes()
    lane = np.arange(64, dtype=np.uint32)
    for w in range(4):
        for it in range(4):
            at = 64 * w + 256 * it       # s26 = (w << 8) + (it << 10) bytes
            want = (at + lane) + np.uint32(max(5 * it + w, 100))
            assert np.array_equal(out_lock[at:at + 64], want), (w, it)
    for a, b in zip(alone.waves, lock.waves):
        assert np.array_equal(a.sgpr[20:31], b.sgpr[20:31])
        assert a.scc == b.scc and a.done and b.done
