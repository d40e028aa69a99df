"""Hand-written kernels for emulator tests: a body and ``.amdhsa_*`` directives -> .hsaco bytes
with llvm-mc-22 / ld.lld-22 (no asmgen; isa/emu tests stay independent of the generator)."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

MC, LLD = shutil.which("llvm-mc-22"), shutil.which("ld.lld-22")
# The one marker for tests that assemble a hand-written kernel (clang-built kernels have
# test_llvm_kernels_zoo_util.needs_llvm). Off CI a machine without llvm-mc-22 / ld.lld-22 skips
# them with this reason; under CI=true (.ci/run installs llvm-22) tests/conftest.py turns any
# such skip into a failure of the run, so it cannot hide one there.
needs_mc = pytest.mark.skipif(not (MC and LLD), reason="llvm-mc-22 / ld.lld-22 not installed")


def kernel_text(body: str, directives: str = "", arch: str = "gfx942", name: str = "k") -> str:
    """A complete .s: ``body`` in .text and an .amdhsa_kernel block with only ``directives``
    (every other field at LLVM's default)."""
    return f""".amdgcn_target "amdgcn-amd-amdhsa--{arch}"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl {name}
.type {name},@function
{name}:
{body}
.L{name}_end:
.size {name}, .L{name}_end-{name}
.rodata
.p2align 6
.amdhsa_kernel {name}
{directives}
.end_amdhsa_kernel
"""


def assemble(text: str, arch: str = "gfx942") -> bytes:
    with tempfile.TemporaryDirectory(prefix="emu-hand-") as tmp:
        src, obj, out = Path(tmp, "k.s"), Path(tmp, "k.o"), Path(tmp, "k.hsaco")
        src.write_text(text)
        subprocess.run([MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-filetype=obj",
                        "-o", str(obj), str(src)], check=True, capture_output=True, text=True)
        subprocess.run([LLD, "-shared", str(obj), "-o", str(out)], check=True, capture_output=True)
        return out.read_bytes()


def hand_kernel(body: str, directives: str = "", arch: str = "gfx942", name: str = "k") -> bytes:
    return assemble(kernel_text(body, directives, arch, name), arch)
