"""Fixtures of the isa tests: where LLVM 22 lives, and helpers that run llvm-mc / llvm-objdump / llc.

Looks for ``llvm-mc-22`` on PATH, then /usr/lib/llvm-22/bin (plain ``llvm-mc`` on this machine is
LLVM 14, too old). The lead will later point this at ``asmgen.toolchain``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

LLVM22_DIRS = ("/usr/lib/llvm-22/bin",)


def find_llvm_tool(name: str) -> str | None:
    """Path of an LLVM 22 tool (``llvm-mc``, ``llvm-objdump``, ``llc``, ``clang``) or None."""
    found = shutil.which(f"{name}-22")
    if found:
        return found
    for d in LLVM22_DIRS:
        p = Path(d) / name
        if p.exists():
            return str(p)
    return None


def _tool(name: str) -> str:
    path = find_llvm_tool(name)
    if path is None:
        pytest.skip(f"LLVM 22 {name} not found (looked for {name}-22 on PATH and in {LLVM22_DIRS})")
    return path


@pytest.fixture(scope="session")
def llvm_mc() -> str:
    return _tool("llvm-mc")


@pytest.fixture(scope="session")
def llvm_objdump() -> str:
    return _tool("llvm-objdump")


@pytest.fixture(scope="session")
def llc() -> str:
    return _tool("llc")


@pytest.fixture(scope="session")
def clang() -> str:
    return _tool("clang")


def assemble(llvm_mc: str, arch: str, lines: list[str]) -> tuple[list[list[int] | None], dict[int, str]]:
    """Assemble ``lines`` in one llvm-mc call: (encoding bytes per line or None, {line index: error})."""
    r = subprocess.run([llvm_mc, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-show-encoding"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    errors: dict[int, str] = {}
    for m in re.finditer(r"<stdin>:(\d+):\d+: error: (.*)", r.stderr):
        errors.setdefault(int(m.group(1)) - 1, m.group(2))
    encs = iter(re.findall(r"encoding: \[([^\]]*)\]", r.stdout))
    out: list[list[int] | None] = []
    for i in range(len(lines)):
        out.append(None if i in errors else [int(x, 16) for x in next(encs).split(",")])
    return out, errors


def objdump_lines(llvm_mc: str, llvm_objdump: str, arch: str, lines: list[str]) -> list[tuple[str, list[int]]]:
    """Assemble ``lines`` into an object and disassemble it: (text line, encoding bytes) per instruction."""
    with tempfile.TemporaryDirectory() as d:
        obj = os.path.join(d, "a.o")
        r = subprocess.run([llvm_mc, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-filetype=obj", "-o", obj],
                           input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr[:2000]
        return disassemble(llvm_objdump, arch, obj)


def disassemble(llvm_objdump: str, arch: str, obj: str) -> list[tuple[str, list[int]]]:
    dis = subprocess.run([llvm_objdump, "-d", f"--mcpu={arch}", obj], capture_output=True, text=True,
                         check=True).stdout
    out = []
    for line in dis.splitlines():
        m = re.search(r"//\s*[0-9A-Fa-f]+:\s*((?:[0-9A-Fa-f]{8}\s*)+)", line)
        if m:
            words = [int(w, 16) for w in m.group(1).split()]
            out.append((line, [b for w in words for b in w.to_bytes(4, "little")]))
    return out
