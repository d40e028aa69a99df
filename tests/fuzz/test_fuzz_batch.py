"""Fuzz batches (asmgen.fuzz.batch): K cases' kernels in one code object give each kernel the
machine code it has alone, each case the outcome it has alone, and a failing case its lone
kernel (the reproducer); a batch that does not assemble falls back to every case alone."""
from __future__ import annotations

import dataclasses

import pytest

from asmgen.emit.multi import batch_name, emit_kernels, relabel
from asmgen.errors import EmitError
from asmgen.fuzz import batch as fbatch
from asmgen.fuzz import cases as fcases
from asmgen.fuzz.batch import run_batch
from asmgen.fuzz.cases import PASS, REJECTED, Outcome, lower_case, run_case
from asmgen.fuzz.strategies import FuzzCase
from asmgen.kinds.gemm.config import GemmConfig
from isa.codeobj import CodeObject
from isa.instr import Instr
from isa.operands import Label

CFG = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2))


def _code(hsaco: bytes, name: str):
    return CodeObject.from_bytes(hsaco).kernels[name]


def test_batched_kernels_have_their_lone_machine_code():
    cases = [FuzzCase(CFG, s, s) for s in (3, 4, 5)]
    outs = run_batch(cases)
    names = [o.kernel.meta["kernel"] for o in outs]
    assert [o.kind for o in outs] == [PASS] * 3
    lone = run_case(cases[0]).kernel
    assert names == [batch_name(lone.name, i) for i in range(3)] and len(set(names)) == 3
    # one code object for the batch, its hash in every contract
    assert len({o.kernel.hsaco for o in outs}) == 1
    import hashlib
    assert {o.kernel.meta["hsaco_sha256"] for o in outs} == \
        {hashlib.sha256(outs[0].kernel.hsaco).hexdigest()}
    co = CodeObject.from_bytes(outs[0].kernel.hsaco)
    assert sorted(co.kernels) == sorted(names)
    for case, out in zip(cases, outs):
        alone = run_case(case).kernel
        a, b = _code(alone.hsaco, alone.name), co.kernels[out.kernel.meta["kernel"]]
        assert a.code == b.code, f"{b.name}: machine code differs from the kernel assembled alone"
        # the descriptor is the same but for where it finds its code
        assert dataclasses.replace(a.descriptor, kernel_code_entry_byte_offset=0, raw=b"") == \
            dataclasses.replace(b.descriptor, kernel_code_entry_byte_offset=0, raw=b"")
        assert a.args == b.args and a.kernarg_segment_size == b.kernarg_segment_size
        # the contract is the lone kernel's but for the symbol and the code object
        drop = ("kernel", "hsaco_sha256")
        assert {k: v for k, v in out.kernel.meta.items() if k not in drop} == \
            {k: v for k, v in alone.meta.items() if k not in drop}


def test_relabel_suffixes_labels_and_branch_targets():
    items = ["loop_k", Instr("s_cbranch_scc1", (Label("loop_k"),)), Instr("s_endpgm")]
    out = relabel(items, "__b2")
    assert out[0] == "loop_k__b2" and out[1].operands == (Label("loop_k__b2"),)
    assert out[2] is items[2]


def test_emit_kernels_refuses_mixed_arches_and_empty_batches():
    low = lower_case(FuzzCase(CFG, 1, 1))
    other = dataclasses.replace(low.res, arch="gfx950")
    with pytest.raises(EmitError, match="one arch"):
        emit_kernels([(low.items, low.res), (low.items, other)])
    with pytest.raises(EmitError, match="at least one"):
        emit_kernels([])


def test_compile_outcomes_in_a_batch_are_classified_as_alone(monkeypatch):
    """A case whose compiler raises a resource error (refused), or a plain ConfigError
    (rejected), gets the outcome run_case gives it; the others still assemble and pass."""
    from asmgen.errors import ConfigError
    from asmgen.passes.regalloc import RegisterBudgetError
    real = fbatch.lower_case

    def lower(case):
        if case.sched_seed == 2:
            raise RegisterBudgetError("s", 120, 102, "patched")
        if case.sched_seed == 3:
            raise ConfigError("patched: no such config")
        return real(case)
    monkeypatch.setattr(fbatch, "lower_case", lower)
    outs = run_batch([FuzzCase(CFG, s, s) for s in (1, 2, 3, 4)])
    assert [o.kind for o in outs] == [PASS, "refused:RegisterBudgetError", REJECTED, PASS]
    assert [o.kernel.meta["kernel"][-4:] for o in (outs[0], outs[3])] == ["__b0", "__b1"]


def test_a_failing_batched_case_is_rerun_alone(monkeypatch):
    """The batch's check says Mismatch for its second kernel; the lone run agrees (the check is
    patched for both): the outcome carries the lone kernel, whose name has no batch suffix."""
    real = fcases.check_case

    def check(case, kern, t0):
        if case.sched_seed == 8:
            return Outcome(fcases.MISMATCH, "patched", kern, 0.0)
        return real(case, kern, t0)
    monkeypatch.setattr(fbatch, "check_case", check)
    monkeypatch.setattr(fcases, "check_case", check)
    outs = run_batch([FuzzCase(CFG, 7, 7), FuzzCase(CFG, 8, 8)])
    assert outs[0].kind == PASS and outs[0].kernel.meta["kernel"].endswith("__b0")
    assert outs[1].kind == fcases.MISMATCH
    assert outs[1].kernel.meta["kernel"] == outs[1].kernel.name and "__b" not in outs[1].kernel.name
    assert outs[1].kernel.asm.count(".amdhsa_kernel ") == 1


def test_a_disagreeing_lone_run_keeps_the_batch_failure(monkeypatch):
    real = fcases.check_case

    def check(case, kern, t0):
        if "__b" in kern.meta["kernel"]:
            return Outcome("LdsRaceError", "batched only", kern, 0.0)
        return real(case, kern, t0)
    monkeypatch.setattr(fbatch, "check_case", check)
    out, = run_batch([FuzzCase(CFG, 7, 7)])
    assert out.kind == "LdsRaceError" and "run alone" in out.message and PASS in out.message


def test_a_batch_that_does_not_assemble_runs_every_case_alone(monkeypatch):
    from asmgen.toolchain import find_toolchain
    tc = find_toolchain()

    class Refusing:
        version = tc.version

        def assemble(self, text, arch):
            raise RuntimeError("refused")
    seen = []
    real = fbatch.run_case
    monkeypatch.setattr(fbatch, "run_case", lambda c: seen.append(c) or real(c))
    cases = [FuzzCase(CFG, 1, 1), FuzzCase(CFG, 2, 2)]
    outs = run_batch(cases, toolchain=Refusing())
    assert seen == cases and [o.kind for o in outs] == [PASS, PASS]
    assert all("__b" not in o.kernel.name for o in outs)


def test_the_campaign_runs_its_cases_in_batches(monkeypatch, tmp_path):
    """The first case alone (it warms the process), the rest of the examples in one batch; every
    case counted once and the summary written."""
    from asmgen.fuzz import runner
    sizes = []
    real = runner.run_batch
    monkeypatch.setattr(runner, "run_batch", lambda cs: sizes.append(len(cs)) or real(cs))
    s = runner.campaign("gemm", budget=None, examples=4, seed=5, outdir=tmp_path,
                        progress_stream=None)
    assert sizes == [3] and s.cases == 4
    assert s.passes + s.rejected + sum(s.refused.values()) + s.failed == 4
    assert (tmp_path / "summary.json").exists()
