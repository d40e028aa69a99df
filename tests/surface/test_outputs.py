"""Atomic outputs (asmgen.outputs): a kernel's .s/.hsaco/.json are published together or not at
all (a failure injected between the writes or between the renames leaves all three or none), and
a different kernel of the same name is never silently replaced."""
from __future__ import annotations

import json

import pytest

import asmgen.outputs as outputs
from asmgen.api import gemm
from asmgen.outputs import OutputError

SMALL = dict(tile=(32, 32, 16), waves=(1, 1))


@pytest.fixture(scope="module")
def kern():
    return gemm(32, 32, 16, **SMALL)


def _names(d):
    return sorted(p.name for p in d.iterdir())


@pytest.mark.parametrize("stage", ["write:{n}.s", "write:{n}.json", "rename:{n}.s",
                                   "rename:{n}.hsaco", "rename:{n}.json"])
def test_failure_leaves_none(kern, tmp_path, monkeypatch, stage):
    monkeypatch.setattr(outputs, "_FAIL_AT", stage.format(n=kern.name))
    with pytest.raises(OutputError, match="injected failure"):
        kern.save(tmp_path)
    assert _names(tmp_path) == []            # no file, no temporary left behind


@pytest.mark.parametrize("stage", ["rename:{n}.hsaco", "rename:{n}.json"])
def test_failure_keeps_the_previous_three(kern, tmp_path, monkeypatch, stage):
    kern.save(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    other = gemm(32, 32, 16, **SMALL)
    other.asm += "\n// rebuilt\n"
    monkeypatch.setattr(outputs, "_FAIL_AT", stage.format(n=kern.name))
    with pytest.raises(OutputError):
        other.save(tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_all_three_published(kern, tmp_path):
    path = kern.save(tmp_path)
    assert _names(tmp_path) == sorted(f"{kern.name}{e}" for e in (".hsaco", ".json", ".s"))
    assert json.loads(path.read_text())["hsaco_sha256"]


def test_a_different_kernel_of_the_same_name_is_refused(kern, tmp_path):
    kern.save(tmp_path)
    meta = json.loads((tmp_path / f"{kern.name}.json").read_text())
    meta["config"]["m"] = 64
    (tmp_path / f"{kern.name}.json").write_text(json.dumps(meta))
    with pytest.raises(OutputError, match="already holds a different kernel of the same name "
                                          r"\(they differ in config\)"):
        kern.save(tmp_path)


def test_the_same_kernel_rebuilt_replaces(kern, tmp_path):
    kern.save(tmp_path)
    meta = json.loads((tmp_path / f"{kern.name}.json").read_text())
    meta["asmgen"] = "0.0.1"                 # built by an older asmgen: the same kernel
    (tmp_path / f"{kern.name}.json").write_text(json.dumps(meta))
    kern.save(tmp_path)
    assert json.loads((tmp_path / f"{kern.name}.json").read_text())["asmgen"] != "0.0.1"


def test_names_carry_arch_and_baked_sizes():
    kw = dict(SMALL, mfma=(32, 32, 8), assemble=False)
    names = {gemm(32, 32, 16, arch=a, **kw).name for a in ("gfx942", "gfx950")}
    names |= {gemm(m, 32, 16, bake_sizes=True, **kw).name for m in (32, 64)}
    names |= {gemm(32, 32, 16, bake_sizes=True, ldc=48, **kw).name}
    names |= {gemm(32, 32, 16, schedule=s, **kw).name for s in ("pgr1", "pgr2")}
    assert len(names) == 6, names
