"""Every spec of both tables checked against LLVM 22: its canonical form assembles on the arches it
claims (and not on the one it lacks), encodes at the size its format implies, and survives
assemble -> llvm-objdump -> asm_parse -> print -> assemble with identical bytes. LLVM-compiled OpenCL
kernels disassemble into lines the parser and the tables understand, and round-trip too."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from llvm_text import assemble, disassemble, objdump_lines

from isa.access import accesses
from isa.asm_format import format_instr
from isa.asm_parse import parse_line
from isa.operands import Imm
from isa.tables import aliases, canonical_instr, get_spec, spec_for, spec_table

ARCHES = ("gfx942", "gfx950")
DATA = Path(__file__).parent / "data"


def _canonical_lines(arch: str) -> tuple[list[str], list]:
    specs = list(spec_table(arch).values())
    return [format_instr(canonical_instr(s, arch)) for s in specs], specs


@pytest.mark.parametrize("arch", ARCHES)
def test_every_canonical_form_assembles(llvm_mc, arch):
    lines, _ = _canonical_lines(arch)
    _, errors = assemble(llvm_mc, arch, lines)
    assert not errors, "\n".join(f"{lines[i]!r}: {msg}" for i, msg in sorted(errors.items()))


def _expected_size(spec, instr) -> int:
    literal = any(isinstance(o, Imm) and not o.is_inline for o in instr.operands)
    if spec.fmt in ("SOPK", "SOPP"):  # a 16-bit immediate inside the word, never a literal
        return 4
    if spec.fmt in ("VOP1", "VOP2", "VOPC", "SOP1", "SOP2", "SOPC"):
        return 4 + 4 * literal
    if spec.name.startswith("v_mfma_scale"):
        return 16  # a v_mfma_ld_scale_b32 prefix word pair plus the MFMA (llvm-mc 22)
    return 8


@pytest.mark.parametrize("arch", ARCHES)
def test_encoding_size_matches_format(llvm_mc, arch):
    """A VOP1/VOP2/VOPC spec whose canonical form needs the 8-byte VOP3 encoding is mis-filed."""
    lines, specs = _canonical_lines(arch)
    encs, errors = assemble(llvm_mc, arch, lines)
    assert not errors
    wrong = [f"{s.name} ({s.fmt}): {len(e)} bytes" for s, e in zip(specs, encs)
             if len(e) != _expected_size(s, canonical_instr(s, arch))]
    assert not wrong, wrong


@pytest.mark.parametrize("arch,other", [("gfx942", "gfx950"), ("gfx950", "gfx942")])
def test_arch_only_specs_are_rejected_by_the_other_arch(llvm_mc, arch, other):
    only = [s for s in spec_table(arch).values() if other not in s.archs]
    assert only, f"no {arch}-only specs"
    lines = [format_instr(canonical_instr(s, arch)) for s in only]
    _, errors = assemble(llvm_mc, other, lines)
    accepted = [lines[i] for i in range(len(lines)) if i not in errors]
    assert not accepted, f"{other} accepts what the table says is {arch}-only: {accepted}"


@pytest.mark.parametrize("arch", ARCHES)
def test_canonical_forms_round_trip_through_objdump(llvm_mc, llvm_objdump, arch):
    lines, specs = _canonical_lines(arch)
    dis = objdump_lines(llvm_mc, llvm_objdump, arch, lines)
    assert len(dis) == len(lines)
    parsed = [parse_line(text, arch) for text, _ in dis]
    for spec, p in zip(specs, parsed):
        want = canonical_instr(spec, arch)
        assert (p.op, p.operands) == (want.op, want.operands), f"{spec.name}: objdump gave {p}"
        assert spec_for(arch, p) is spec
    printed = [format_instr(p) for p in parsed]
    encs, errors = assemble(llvm_mc, arch, printed)
    assert not errors, {printed[i]: m for i, m in errors.items()}
    diffs = [(text, printed[i]) for i, ((text, raw), enc) in enumerate(zip(dis, encs)) if raw != enc]
    assert not diffs, diffs[:10]


def test_legacy_mfma_aliases_encode_like_the_table_name(llvm_mc):
    for arch in ARCHES:
        pairs = [(alias, name) for alias, name in aliases().items() if name in spec_table(arch)]
        assert pairs
        canon = [format_instr(canonical_instr(get_spec(arch, name), arch)) for _, name in pairs]
        legacy = [line.replace(name, alias, 1) for line, (alias, name) in zip(canon, pairs)]
        enc_c, err_c = assemble(llvm_mc, arch, canon)
        enc_l, err_l = assemble(llvm_mc, arch, legacy)
        assert not err_c and not err_l, {legacy[i]: m for i, m in err_l.items()}
        assert enc_c == enc_l


@pytest.fixture(scope="module")
def opencl_objects(clang, tmp_path_factory):
    """tests/isa/data/kernels.cl compiled by clang-22 for both arches at -O2 and -O0."""
    out = {}
    d = tmp_path_factory.mktemp("cl")
    for arch in ARCHES:
        for opt in ("-O2", "-O0"):
            obj = d / f"k{opt}_{arch}.o"
            subprocess.run([clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}",
                            "-nogpulib", opt, "-c", str(DATA / "kernels.cl"), "-o", str(obj)], check=True,
                           capture_output=True)
            out[(arch, opt)] = obj
    return out


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("opt", ("-O2", "-O0"))
def test_llvm_compiled_opencl_round_trips(llvm_mc, llvm_objdump, opencl_objects, arch, opt):
    dis = disassemble(llvm_objdump, arch, str(opencl_objects[(arch, opt)]))
    assert len(dis) > 300
    instrs = [parse_line(text, arch) for text, _ in dis]
    for ins in instrs:
        spec = spec_for(arch, ins)
        accesses(spec, ins)  # operand count matches the spec
    printed = [format_instr(i) for i in instrs]
    encs, errors = assemble(llvm_mc, arch, printed)
    assert not errors, {printed[i]: m for i, m in list(errors.items())[:10]}
    diffs = [(text.split("//")[0].strip(), printed[i]) for i, ((text, raw), enc) in enumerate(zip(dis, encs))
             if raw != enc]
    assert not diffs, diffs[:10]
