"""Toolchain discovery order, version filtering, forcing a kind, and the not-found message."""
import os
import shutil
import stat
from pathlib import Path

import pytest

from asmgen.errors import ToolchainError, ToolchainNotFound
from asmgen.toolchain import MIN_LLVM_MAJOR, clear_cache, find_toolchain


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    for k in ("ASMGEN_TOOLCHAIN", "ASMGEN_LLVM", "ROCM_PATH"):
        monkeypatch.delenv(k, raising=False)
    clear_cache()
    yield
    clear_cache()


def _real_llvm():
    try:
        return find_toolchain("llvm")
    except ToolchainNotFound:
        pytest.skip("no LLVM >= 19 on this machine")


def _fake_llvm_mc(folder: Path, version: str, targets=("amdgcn",), name="llvm-mc") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    lines = [f"Ubuntu LLVM version {version}", "  Registered Targets:"]
    lines += [f"    {t:<10} - target" for t in targets]
    quoted = " ".join(f"'{ln}'" for ln in lines)
    p.write_text(f"#!/bin/sh\nprintf '%s\\n' {quoted}\n")  # printf is a shell builtin: no PATH needed
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return p


def _link_real(folder: Path, tc) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(tc.assembler[0], folder / "llvm-mc")
    os.symlink(tc.linker[0], folder / "ld.lld")


def test_default_finds_llvm_at_least_19():
    tc = _real_llvm()
    assert tc.kind == "llvm"
    assert tc.major >= MIN_LLVM_MAJOR
    assert "LLVM version" in tc.version


def test_old_plain_llvm_mc_is_skipped_with_reason():
    plain = shutil.which("llvm-mc")
    tc = _real_llvm()
    if plain is None or Path(tc.assembler[0]).resolve() == Path(plain).resolve():
        pytest.skip("plain llvm-mc is absent or itself new enough")
    assert any("older than LLVM" in r and "llvm-mc" in r for r in tc.skipped), tc.skipped


def test_fake_old_and_targetless_llvm_on_path_are_skipped(tmp_path, monkeypatch):
    real = _real_llvm()
    _fake_llvm_mc(tmp_path / "a", "14.0.6")
    _fake_llvm_mc(tmp_path / "b", "20.1.0", targets=("x86-64",))
    monkeypatch.setenv("PATH", f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}")
    clear_cache()
    if not any(Path("/usr/lib").glob("llvm-*/bin/llvm-mc")):
        with pytest.raises(ToolchainNotFound):
            find_toolchain("llvm")
        return
    tc = find_toolchain("llvm")
    assert tc.major >= MIN_LLVM_MAJOR and real.kind == "llvm"
    assert any("14.0.6 is older than LLVM 19" in r for r in tc.skipped), tc.skipped
    assert any("lacks the amdgcn target" in r for r in tc.skipped), tc.skipped
    assert tc.assembler[0].startswith("/usr/lib/llvm-")


def test_asmgen_llvm_folder_comes_first(tmp_path, monkeypatch):
    real = _real_llvm()
    _link_real(tmp_path / "bin", real)
    monkeypatch.setenv("ASMGEN_LLVM", str(tmp_path / "bin"))
    clear_cache()
    tc = find_toolchain()
    assert tc.source == "$ASMGEN_LLVM"
    assert tc.assembler == (str(tmp_path / "bin" / "llvm-mc"),)
    assert tc.linker == (str(tmp_path / "bin" / "ld.lld"),)


def test_rocm_path_is_searched_before_path(tmp_path, monkeypatch):
    real = _real_llvm()
    _link_real(tmp_path / "rocm" / "llvm" / "bin", real)
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    clear_cache()
    tc = find_toolchain()
    assert tc.source == "$ROCM_PATH/llvm/bin"


def test_bad_asmgen_llvm_is_an_error_not_a_fallback(tmp_path, monkeypatch):
    _fake_llvm_mc(tmp_path, "14.0.6")
    monkeypatch.setenv("ASMGEN_LLVM", str(tmp_path))
    clear_cache()
    with pytest.raises(ToolchainNotFound) as ei:
        find_toolchain()
    msg = str(ei.value)
    assert "older than LLVM 19" in msg
    assert "apt-get install llvm-22 lld-22" in msg and "pip install ziglang" in msg


def test_missing_ld_lld_is_reported(tmp_path, monkeypatch):
    real = _real_llvm()
    (tmp_path / "bin").mkdir()
    os.symlink(real.assembler[0], tmp_path / "bin" / "llvm-mc")
    monkeypatch.setenv("ASMGEN_LLVM", str(tmp_path / "bin"))
    clear_cache()
    # /usr/lib/llvm-NN/bin may still supply ld.lld for the same major; only then is it found.
    major_dir = Path(f"/usr/lib/llvm-{real.major}/bin/ld.lld")
    if major_dir.exists():
        assert find_toolchain().linker == (str(major_dir),)
    else:
        with pytest.raises(ToolchainNotFound, match=r"no ld\.lld"):
            find_toolchain()


def test_forcing_zig_by_env(monkeypatch):
    monkeypatch.setenv("ASMGEN_TOOLCHAIN", "zig")
    clear_cache()
    try:
        tc = find_toolchain()
    except ToolchainNotFound:
        pytest.skip("ziglang not installed")
    assert tc.kind == "zig"
    assert tc.assembler[-2:] == ("clang", "-cc1as")
    assert tc.linker[-1] == "ld.lld"
    assert "clang version" in tc.version


def test_unknown_kind_is_rejected(monkeypatch):
    monkeypatch.setenv("ASMGEN_TOOLCHAIN", "gcc")
    clear_cache()
    with pytest.raises(ToolchainError, match="gcc"):
        find_toolchain()


def test_nothing_found_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    clear_cache()
    import asmgen.toolchain as t
    monkeypatch.setattr(t, "_path_candidates", list)
    monkeypatch.setattr(t.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ToolchainNotFound) as ei:
        find_toolchain()
    msg = str(ei.value)
    assert "apt-get install llvm-22 lld-22" in msg
    assert "pip install ziglang" in msg
    assert "ziglang: the wheel is not installed" in msg


def test_discovery_is_cached():
    a = find_toolchain()
    b = find_toolchain()
    assert a is b
