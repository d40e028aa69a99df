"""The mutation proof (issue #5): every correctness-class mutation of a correct kernel is rejected
by the emulator with the predicted error class; dropping ``s_setprio`` (neutral) is not."""
from __future__ import annotations

import pytest

from asmgen.api import gemm
from asmgen.fuzz.mutate import (
    ANY,
    CORRECTNESS_CLASSES,
    NEUTRAL_CLASSES,
    SURVIVED,
    Program,
    all_sites,
    mutate_kernel,
    run_mutant,
)

# 8 K-iterations, 4 waves, PGR2 (ds_reads interleaved with MFMAs): every class has sites here
KERNEL = {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "NT"}


@pytest.fixture(scope="module")
def kernel():
    return gemm(**KERNEL)


@pytest.fixture(scope="module")
def report(kernel):
    return mutate_kernel(kernel, per_class=2, seed=1)


def test_every_class_has_sites(kernel):
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    sites = all_sites(prog, kernel.config.waves[0] * kernel.config.waves[1])
    for cls in CORRECTNESS_CLASSES + NEUTRAL_CLASSES:
        assert sites[cls], f"no {cls} site in {kernel.name}"


@pytest.mark.parametrize("cls", CORRECTNESS_CLASSES)
def test_correctness_mutations_are_killed_with_the_predicted_error(report, cls):
    rs = report.by_class()[cls]
    assert rs, f"no {cls} mutant ran"
    for r in rs:
        assert r.killed, f"{cls} survived: {r.mutant.description}: {r.message}"
        assert r.precise, (f"{cls}: {r.mutant.description}: expected {r.mutant.expected}, "
                           f"emulator said {r.outcome}: {r.message}")
    assert report.kill_rate(cls) == 1.0


def test_precise_error_per_class(report):
    """The classes whose error is fixed by construction report exactly that error."""
    fixed = {"shorten_nop": "HazardError", "reuse_inflight": "PendingOverwriteError",
             "delete_barrier": "LdsRaceError"}
    for cls, err in fixed.items():
        assert {r.outcome for r in report.by_class()[cls]} == {err}
    for cls in ("delete_waitcnt", "raise_waitcnt", "hoist_ds_read"):
        assert all(ANY not in r.mutant.expected for r in report.by_class()[cls])


def test_setprio_drop_is_neutral(report):
    rs = report.by_class()["drop_setprio"]
    assert rs and all(r.outcome == SURVIVED for r in rs), [r.outcome for r in rs]
    assert "drop_setprio" not in CORRECTNESS_CLASSES


def test_unmutated_kernel_passes(kernel):
    """The baseline: the kernel itself (an empty mutation) passes the same check."""
    from asmgen.fuzz.mutate import Mutant
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    r = run_mutant(kernel, prog, Mutant("none", 0, "no edit", [], ()), seed=1)
    assert r.outcome == SURVIVED, r.message
