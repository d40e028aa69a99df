"""Run llvm-mc / llvm-objdump on assembly text for the isa tests: encodings per line, disassembly
per instruction (the tools' paths come from tests/isa/conftest.py's fixtures)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile


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
