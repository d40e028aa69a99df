"""Waves stepping together (isa.emu.group): every VALU mnemonic of the spec tables that binds for a
group gives, for a group of waves with different EXEC masks and random registers, the same bits in
every VGPR and AGPR as the per-wave binding run on each wave alone; so do the dense MFMAs. And a
workgroup whose waves run one instruction stream does take group steps, with every check still on."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu import catalog
from isa.emu.group import WaveGroup, WorkgroupFiles
from isa.emu.state import Wave
from isa.instr import Instr
from isa.operands import Imm, Reg
from isa.spec import ARCHES
from isa.tables import spec_table

MODE = {"bits": 0x2F0}      # the MODE float bits the waves run with (isa.emu.denorm)
EXECS = ((1 << 64) - 1, 0x00FF00FF12345678, (1 << 64) - 1, 0xFFFFFFFF00000001, (1 << 64) - 1)


class _M:
    def __init__(self, arch):
        self.arch = arch

    def error(self, cls, what, w=None, **kw):
        return cls(what)


def _operands(spec, variant: int):
    """Registers for every operand: destinations v100+/a100+, sources v10, v20, v30, ... (variant
    1: first source an SGPR, variant 2: last source an inline constant)."""
    ops, nsrc = [], 0
    srcs = [i for i, o in enumerate(spec.operands) if o.role == "src"]
    for i, o in enumerate(spec.operands):
        if o.role in ("dst", "dst_src"):
            if "v" in o.kinds:
                ops.append(Reg("v", 100 + 20 * len(ops), o.width))
            elif "a" in o.kinds:
                ops.append(Reg("a", 100 + 20 * len(ops), o.width))
            else:
                return None          # scalar destination: steps per wave
            continue
        if variant == 1 and i == srcs[0] and "s" in o.kinds:
            ops.append(Reg("s", 8, o.width))
        elif variant == 2 and i == srcs[-1] and "i" in o.kinds:
            ops.append(Imm(3))
        elif "v" in o.kinds:
            ops.append(Reg("v", 10 + 10 * nsrc, o.width))
        elif "a" in o.kinds:
            ops.append(Reg("a", 10 + 10 * nsrc, o.width))
        elif "s" in o.kinds:
            ops.append(Reg("s", 8 + 4 * nsrc, o.width))
        elif "i" in o.kinds:
            ops.append(Imm(1))
        else:
            return None
        nsrc += 1
    return tuple(ops)


def _waves(seed: int, n: int):
    rng = np.random.default_rng(seed)
    waves = []
    for k in range(n):
        w = Wave(k)
        w.vgpr[:] = rng.integers(0, 1 << 32, w.vgpr.shape, dtype=np.uint32)
        # some small and special floats so float paths see zeros, denormals, NaN, inf
        w.vgpr[10:60:3, ::7] = np.array([0, 1, 0x80000000, 0x7F800000, 0x7FC00000, 0x3C003C00,
                                         0x00000001, 0x00008001, 0x3F800000, 0xBF800000],
                                        np.uint32)[rng.integers(0, 10, (17, 10))]
        w.agpr[:] = rng.integers(0, 1 << 32, w.agpr.shape, dtype=np.uint32)
        w.sgpr[:100] = rng.integers(0, 1 << 32, 100, dtype=np.uint32)
        w.set_exec(EXECS[k % len(EXECS)])
        w.fp_mode = MODE["bits"]
        waves.append(w)
    return waves


def _cases(arch):
    specs = {sp.name: sp for sp in spec_table(arch).values()}
    for name, sp in sorted(specs.items()):
        if not catalog.groupable(name) or sp.mfma is not None or not name.startswith("v_"):
            continue        # scalar and control group forms: tests/emu/test_group_salu.py
        for variant in (0, 1, 2):
            ops = _operands(sp, variant)
            if ops is not None:
                yield name, sp, Instr(name, ops)


def _compare(ins, spec, arch, members_slots, n=5, seed=0):
    gfn = catalog.bind_group(ins, spec, arch)
    if gfn is None:
        return None
    ref = _waves(seed, n)
    got = _waves(seed, n)
    m = _M(arch)
    fn = catalog.bind(ins, spec, arch)
    for k in members_slots:
        fn(m, ref[k])
    files = WorkgroupFiles(got)
    gfn(m, WaveGroup(files, [got[k] for k in members_slots]))
    for k in range(n):
        assert np.array_equal(ref[k].vgpr, got[k].vgpr), (str(ins), k)
        assert np.array_equal(ref[k].agpr, got[k].agpr), (str(ins), k)
        assert np.array_equal(ref[k].sgpr, got[k].sgpr), (str(ins), k)
    return True


def _per_wave_rejects(ins, spec, arch, exc_type) -> bool:
    """Whether the per-wave form raises ``exc_type`` on the waves the group form was given (both
    seeds of ``_compare``) with the same error type: a refusal that depends on the data (e.g. a value the emulator declines to
    model) must come from both forms alike, so it is not a group question."""
    fn = catalog.bind(ins, spec, arch)
    for seed in (0, 1):
        for wave in _waves(seed, 5):
            try:
                fn(_M(arch), wave)
            except exc_type:
                return True
    return False


@pytest.mark.parametrize("mode", [0x2F0, 0x200])
@pytest.mark.parametrize("arch", ARCHES)
def test_every_group_bound_valu_op_matches_the_per_wave_op(arch, mode, monkeypatch):
    """In the default MODE (no flushing) and with every denormal flushed (FLOAT_DENORM 0/0)."""
    monkeypatch.setitem(MODE, "bits", mode)
    ran = 0
    errors = []
    for name, sp, ins in _cases(arch):
        try:
            # contiguous members (slice) and a scattered subset (index array)
            ok = _compare(ins, sp, arch, [0, 1, 2, 3, 4]) and _compare(ins, sp, arch, [3, 0, 4], seed=1)
        except Exception as exc:  # noqa: BLE001 - the per-wave form may reject the operands too
            if _per_wave_rejects(ins, sp, arch, type(exc)):
                continue   # both forms reject these operands (data-dependent refusals too)
            errors.append(f"{ins}: {type(exc).__name__}: {exc}")
            continue
        ran += bool(ok)
    assert errors == []
    assert ran > 300


@pytest.mark.parametrize("name", ["v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_bf16",
                                  "v_mfma_f32_16x16x4_f32", "v_mfma_i32_16x16x32_i8"])
def test_group_mfma_matches_per_wave(name):
    sp = spec_table("gfx942")[name]
    cd, ab = sp.mfma.cd_regs, sp.mfma.a_regs
    ins = Instr(name, (Reg("a", 0, cd), Reg("v", 10, ab), Reg("v", 20, ab), Reg("a", 0, cd)))
    rng = np.random.default_rng(3)

    def waves():
        ws = []
        for k in range(4):
            w = Wave(k)
            w.vgpr[10:30] = rng.integers(0, 1 << 16, (20, 64), dtype=np.uint32) * 0x10001 & 0x3FFF3FFF
            w.agpr[:cd] = np.float32(rng.standard_normal((cd, 64))).view(np.uint32)
            w.set_exec((1 << 64) - 1)
            ws.append(w)
        return ws
    ref = waves()
    rng = np.random.default_rng(3)
    got = waves()
    m = _M("gfx942")
    fn = catalog.bind(ins, sp, "gfx942")
    for w in ref:
        fn(m, w)
    catalog.bind_group(ins, sp, "gfx942")(m, WaveGroup(WorkgroupFiles(got), got))
    for a, b in zip(ref, got):
        assert np.array_equal(a.agpr[:cd], b.agpr[:cd])


LOOP = """
      s_mov_b32 s1, 0
    L:
      v_add_u32 v1, v1, v0
      v_mul_lo_u32 v2, v1, 3
      v_xor_b32 v3, v2, v1
      s_add_u32 s1, s1, 1
      s_cmp_lt_u32 s1, 20
      s_cbranch_scc1 L
      s_endpgm"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_workgroup_in_one_instruction_stream_takes_group_steps(seed):
    from core_util import run
    m = run(LOOP, n_waves=4, seed=seed, vgprs={0: lambda i: np.arange(64) + 100 * i, 1: 0})
    assert m.group_steps > 20                 # the loop body runs as group operations
    for w in m.waves:
        v0 = np.arange(64, dtype=np.uint32) + np.uint32(100 * w.wave_id)
        v1 = v0 * np.uint32(20)
        assert np.array_equal(w.vgpr[1], v1)
        assert np.array_equal(w.vgpr[3], (v1 * np.uint32(3)) ^ v1)


def test_checks_stay_on_in_group_steps(monkeypatch):
    """An unwaited LDS load read by a group-bound VALU op is still a PendingReadError, for every
    seed, raised inside the group step (the per-wave checks run for each member of the group).
    Waves kept in lockstep (split 0) and bound for groups at once, so the op does run as a group."""
    from core_util import run

    from isa.emu import program
    from isa.emu.errors import PendingReadError
    from isa.emu.machine import Machine
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", 0.0)
    text = LOOP.replace("v_add_u32 v1, v1, v0", "ds_read_b32 v5, v4\n      s_waitcnt lgkmcnt(0)\n"
                        "      v_add_u32 v1, v1, v0\n      ds_read_b32 v6, v4\n      v_add_u32 v7, v6, v1")
    for seed in range(4):
        with pytest.raises(PendingReadError, match="v6") as info:
            run(text, n_waves=4, seed=seed, lds=256, vgprs={4: np.arange(64) * 4})
        assert any(entry.name == "_group_step" for entry in info.traceback)
