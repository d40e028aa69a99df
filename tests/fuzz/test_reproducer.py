"""Reproducer files round-trip: saved by the fuzz runner, loaded back to the same case, and their
``asmgen check`` command exits 0 for a correct kernel and 1 for a broken one."""
from __future__ import annotations

import json
import shlex

from asmgen.cli import main
from asmgen.fuzz.cases import Outcome, load_reproducer, run_case, save_reproducer
from asmgen.fuzz.mutate import Program, sites_waitcnt
from asmgen.fuzz.strategies import FuzzCase
from asmgen.kinds.gemm.config import GemmConfig


def _check(cmd: str) -> int:
    argv = shlex.split(cmd)
    assert argv[0] == "asmgen"
    return main(argv[1:])


def test_passing_case_round_trips_into_asmgen_check(tmp_path, capsys):
    case = FuzzCase(GemmConfig(m=40, n=33, k=40, layout="TN", out_dtype="f32"), 7, 11)
    out = run_case(case)
    assert out.kind == "pass", out.message
    path = save_reproducer(tmp_path, 1, case, out)
    data = json.loads(path.read_text())
    assert data["sched_seed"] == 7 and data["emu_seed"] == 11 and data["schedule"] == "fuzz"
    assert load_reproducer(path) == case
    assert _check(data["check_command"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["fuzz", "gemm", "--replay", str(path)]) == 0


def test_failing_kernel_reproducer_fails_asmgen_check(tmp_path, capsys):
    case = FuzzCase(GemmConfig(m=64, n=64, k=64), 3, 5)
    out = run_case(case)
    kern = out.kernel
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    dels, _ = sites_waitcnt(prog, 4)
    from asmgen.toolchain import find_toolchain
    kern.asm = dels[0].apply(prog)
    kern.hsaco = find_toolchain().assemble(kern.asm, kern.config.arch)
    path = save_reproducer(tmp_path, 2, case, Outcome(dels[0].expected[0], "mutant", kern))
    data = json.loads(path.read_text())
    assert data["error_kind"] == dels[0].expected[0]
    assert _check(data["check_command"]) == 1
    assert "FAILED" in capsys.readouterr().out
