"""Our hazard rules against LLVM 22's own recognizer: every pair of isa_hazard_cases goes through
``llc -run-pass post-RA-hazard-rec`` as a two-instruction MIR function; the S_NOP wait states LLVM
inserts must equal ``isa.hazards.required_wait_states`` (the generator's view; both arches, one llc
run per arch), except for cases whose origin is "rocroller" or "isa": there AMD (rocRoller's
observers, the ISA guide's tables) documents more than LLVM inserts, and ours must not be smaller
(strictly larger on every arch for "rocroller"; docs/hazard-audit.md)."""
from __future__ import annotations

import re
import subprocess

import pytest
from isa_hazard_cases import CASES, F8F6F4_CASES, PERMLANE_CASES

from isa.asm_parse import parse_line
from isa.hazards import required_wait_states


def _mir(cases) -> str:
    funcs = []
    for i, c in enumerate(cases):
        funcs.append(f"---\nname: case{i}\ntracksRegLiveness: false\nbody: |\n  bb.0:\n"
                     f"    {c.mir_producer}\n    {c.mir_consumer}\n    S_ENDPGM 0\n...\n")
    return "".join(funcs)


def llvm_wait_states(llc: str, arch: str, cases) -> list[int]:
    """Wait states LLVM inserts between each case's two instructions (one llc run)."""
    src = "--- |\n" + "".join(f"  define void @case{i}() {{ ret void }}\n" for i in range(len(cases))) + "...\n"
    r = subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-run-pass", "post-RA-hazard-rec",
                        "-o", "-", "-x", "mir", "-"], input=src + _mir(cases), capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    bodies = re.findall(r"\nname:\s+(case\d+).*?\nbody:\s+\|(.*?)\n\.\.\.", r.stdout, re.DOTALL)
    waits = {name: sum(int(n) + 1 for n in re.findall(r"S_NOP (\d+)", body)) for name, body in bodies}
    return [waits[f"case{i}"] for i in range(len(cases))]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_rules_match_llvm_hazard_recognizer(llc, arch):
    cases = CASES + (F8F6F4_CASES + PERMLANE_CASES if arch == "gfx950" else [])
    llvm = llvm_wait_states(llc, arch, cases)
    ours = [required_wait_states(arch, parse_line(c.producer), parse_line(c.consumer)) for c in cases]
    diffs = [(c.name, o, n) for c, o, n in zip(cases, ours, llvm)
             if (o < n if c.origin in ("rocroller", "isa") else o != n)]
    assert not diffs, f"(case, ours, llvm): {diffs}"
    assert all(o > n for c, o, n in zip(cases, ours, llvm) if c.origin == "rocroller"), \
        "a 'rocroller' case LLVM now agrees with: make it an 'llvm' case"
