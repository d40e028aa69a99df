"""The hazard rule classes of an instruction (isa.emu.hazard_check.classes) do not depend on which
VGPRs/AGPRs it names, so ``classify`` may share them between instructions of one shape; and the
cached answer is the uncached one. Checked over every instruction of GEMM (several schedules,
both arches) and attention kernels, each renamed to other vector registers."""
from __future__ import annotations

import dataclasses
import random

import pytest

from isa.emu import hazard_check
from isa.emu.program import Program
from isa.operands import Reg
from isa.tables import spec_for


def _kernels():
    from asmgen import api
    out = []
    for arch in ("gfx942", "gfx950"):
        for sched in ("pgr1", "pgr2"):
            out.append(api.gemm(128, 128, 64, dtype="bf16", arch=arch, schedule=sched,
                                tile=(64, 64, 32), waves=(2, 2)))
        fp8 = "fp8_e4m3fnuz" if arch == "gfx942" else "fp8_e4m3"
        out.append(api.gemm(64, 64, 64, dtype=fp8, arch=arch, layout="NT", tile=(64, 64, 64),
                            waves=(2, 2)))
    out.append(api.attention(arch="gfx942", batch=1, heads=1, seqlen_q=64, seqlen_k=64,
                             head_dim=64, dtype="f16"))
    return out


def _instrs(kern):
    from isa.codeobj import CodeObject
    from isa.decode import decode
    co = CodeObject.from_bytes(kern.hsaco)
    ki = next(iter(co.kernels.values()))
    return co.arch, [d.instr for d in decode(ki.code, co.arch)]


def _renamed(ins, rng):
    ops = []
    for o in ins.operands:
        if isinstance(o, Reg) and o.file in ("v", "a"):
            o = Reg(o.file, rng.randrange(0, 256 - o.count + 1), o.count)
        ops.append(o)
    return dataclasses.replace(ins, operands=tuple(ops))


@pytest.fixture(scope="module")
def corpus():
    return [_instrs(k) for k in _kernels()]


def test_classes_ignore_vector_register_indices(corpus):
    assert hazard_check.available()
    rng = random.Random(3)
    checked = 0
    for arch, instrs in corpus:
        for ins in dict.fromkeys(instrs):
            spec = spec_for(arch, ins)      # every instruction the generator emits has a spec
            want = hazard_check.classes(arch, spec, ins)
            for _ in range(3):
                other = _renamed(ins, rng)
                assert hazard_check.shape(other) == hazard_check.shape(ins)
                assert hazard_check.classes(arch, spec_for(arch, other), other) == want, str(ins)
            checked += 1
    assert checked > 300


def test_cached_classes_equal_uncached(corpus):
    """A Program's classes (from the cache once a shape was seen) are the uncached answer, also
    for renamed copies that hit entries other instructions made."""
    hazard_check._CLASSES.clear()
    rng = random.Random(5)
    for arch, instrs in corpus + [(a, [_renamed(i, rng) for i in ins]) for a, ins in corpus]:
        for e in Program(instrs, {}, arch).entries:
            if e.spec is not None:
                assert (e.hz_prod, e.hz_cons, e.hz_max) == \
                    hazard_check.classes(arch, e.spec, e.instr), str(e.instr)
