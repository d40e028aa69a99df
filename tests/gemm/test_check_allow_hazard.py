"""``asmgen check --allow-hazard RULE``: an unknown rule is a user mistake (exit 2); a kernel
with a hazard fails naming the rule, and with that rule allowed it runs on and the check reports
each violation let through (isa.emu.hazard_check; docs/hazard-audit.md)."""
import hashlib
import json
import re

import pytest

from asmgen.cli import main
from asmgen.fuzz.mutate_sites import Program, sites_nop
from asmgen.target import target_of
from asmgen.toolchain import assemble


@pytest.fixture(scope="module")
def contract(tmp_path_factory):
    out = tmp_path_factory.mktemp("k")
    rc = main(["gemm", "--arch", "gfx942", "--m", "32", "--n", "32", "--k", "32", "--dtype", "f16",
               "--layout", "NT", "--schedule", "pgr2", "--tile", "32x32x16", "--waves", "1x1",
               "-o", str(out)])
    assert rc == 0
    (path,) = out.glob("*.json")
    return path


def test_unknown_rule_is_exit_2(contract, capsys):
    assert main(["check", str(contract), "--allow-hazard", "no_such_rule"]) == 2
    assert "not a hazard rule" in capsys.readouterr().err


def test_known_rule_on_a_clean_kernel_reports_nothing(contract, capsys):
    assert main(["check", str(contract), "--allow-hazard", "xdl_write_valu_reads"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK") and "allowed hazard" not in out


def test_hazard_fails_then_runs_on_when_allowed(contract, tmp_path, capsys):
    meta = json.loads(contract.read_text())
    asm = contract.with_suffix(".s").read_text()
    prog = Program.from_asm(asm, target_of(meta["arch"]), meta["kernel"])
    mutants = sites_nop(prog, 1)
    assert mutants, "the kernel has no s_nop the judge needs"
    bad = tmp_path / contract.name
    hsaco = assemble(mutants[0].apply(prog), meta["arch"])
    meta["hsaco_sha256"] = hashlib.sha256(hsaco).hexdigest()   # the contract of the mutant
    bad.write_text(json.dumps(meta))
    bad.with_suffix(".hsaco").write_bytes(hsaco)
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    m = re.search(r"rule: (\w+) \(", out)
    assert "hazard" in out and m, out
    rule = m[1]
    rc = main(["check", str(bad), "--allow-hazard", rule])
    out = capsys.readouterr().out
    assert rc in (0, 1) and re.search(rf"allowed hazard {rule} \((hazard|mfma_shadow)\): \d+", out), out
