"""Instruction specs as data: operand roles, counters, pipelines, cycles, arch availability.

Every classification a pass or the emulator needs ("is this a VMEM load?", "which counter does it
bump?", "how many passes has this MFMA?", "which operands are written?") is read from an
``InstrSpec``, never from opcode lists elsewhere. The per-arch tables live in ``isa.cdna3`` (gfx942)
and ``isa.cdna4`` (gfx950, on top of gfx942); ``isa.tables.spec_table(arch)`` returns one.
"""
from __future__ import annotations

from dataclasses import dataclass

ARCHES = ("gfx942", "gfx950")

# Formats (encodings) of gfx9, as the ISA guide names them.
FORMATS = ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P",
           "MAI", "DS", "MUBUF", "MTBUF", "FLAT", "GLOBAL", "SCRATCH")

# Pipelines an instruction issues to (cycle model, hazard rules).
PIPES = ("salu", "smem", "branch", "valu", "trans", "mfma", "vmem", "lds", "misc")

# Operand kinds, as letters in OperandSpec.kinds:
#   s = SGPR, v = ArchVGPR, a = AccVGPR, i = inline constant, l = 32-bit literal,
#   x = special register (vcc, exec, m0, ...), o = ``off``, b = branch label
KIND_LETTERS = "svailxob"


@dataclass(frozen=True, slots=True)
class OperandSpec:
    """One positional operand: its name, whether it is written or read, allowed kinds, width."""

    name: str
    role: str          # "dst" (written), "src" (read), "dst_src" (read and written, e.g. v_mac dst)
    kinds: str         # letters from KIND_LETTERS
    width: int = 1     # dwords (64-bit tuples are 2, v_mfma 32x32 C/D are 16)
    optional: bool = False
    align: int = 1     # required register alignment (2 for 64-bit VGPR/SGPR tuples on gfx90a+)


@dataclass(frozen=True, slots=True)
class MfmaShape:
    """An MFMA's shape and operand types (cdna-facts section 2.1)."""

    m: int
    n: int
    k: int
    blocks: int        # number of independent blocks (1 for every shape asmgen uses)
    in_type: str       # "f16" | "bf16" | "fp8" | "bf8" | "i8" | "f32" | "xf32" | "f8f6f4"
    out_type: str      # "f32" | "i32"
    a_regs: int        # VGPRs per lane for A (and B)
    cd_regs: int       # VGPRs per lane for C/D
    xdl: bool = True   # XDL (matrix core) op; f32/f64 MFMAs are not (cdna-facts section 3)


@dataclass(frozen=True, slots=True)
class InstrSpec:
    """What the tables know of one mnemonic on the arches it lists."""

    name: str
    fmt: str
    operands: tuple[OperandSpec, ...]
    pipe: str
    archs: frozenset[str] = frozenset(ARCHES)
    counter: str | None = None          # "vm" | "lgkm" | None: which s_waitcnt counter it bumps
    cycles: int = 4                        # issue cycles of a wave64 (VALU 4, trans 16, MFMA passes*4)
    passes: int = 0                        # MFMA passes (1 pass = 4 cycles); 0 for non-MFMA
    passes_by_arch: tuple[tuple[str, int], ...] = ()  # overrides of passes for an arch
    mods: frozenset[str] = frozenset()     # modifiers the assembler accepts on it
    implicit_reads: tuple[str, ...] = ()   # special registers read though not written as operands
    implicit_writes: tuple[str, ...] = ()  # (e.g. "scc", "vcc", "exec", "m0")
    flags: frozenset[str] = frozenset()    # see FLAGS
    mfma: MfmaShape | None = None
    opcode: tuple[tuple[str, int], ...] = ()  # (arch, opcode in its format) as LLVM encodes it
    mem_bytes: int = 0                     # bytes per lane moved by a memory instruction
    note: str = ""

    def passes_on(self, arch: str) -> int:
        for a, p in self.passes_by_arch:
            if a == arch:
                return p
        return self.passes

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def operand_width(self, i: int, operands: tuple) -> int:
        """Dwords operand ``i`` must have, given the instruction's actual operands.

        A GLOBAL ``vaddr`` is a 64-bit address with saddr ``off`` but a 32-bit offset beside an
        SGPR-pair saddr (CDNA3 ISA guide, "Global instructions"); the table lists the 64-bit width.
        """
        ospec = self.operands[i]
        if self.fmt == "GLOBAL" and ospec.name == "vaddr":
            names = [o.name for o in self.operands]
            if "saddr" in names and names.index("saddr") < len(operands):
                saddr = operands[names.index("saddr")]
                if getattr(saddr, "file", None) == "s":
                    return 1
        return ospec.width

    @property
    def dst_operands(self) -> tuple[int, ...]:
        return tuple(i for i, o in enumerate(self.operands) if o.role in ("dst", "dst_src"))

    @property
    def src_operands(self) -> tuple[int, ...]:
        return tuple(i for i, o in enumerate(self.operands) if o.role in ("src", "dst_src"))


# Flags in InstrSpec.flags:
FLAGS = (
    "load",        # reads memory into registers
    "store",       # writes registers to memory
    "atomic",
    "lds_dma",     # buffer/global load straight to LDS (address from M0)
    "lds",         # touches LDS (ds_* and lds_dma)
    "smem",
    "mfma", "xdl",
    "trans",       # transcendental VALU (v_exp, v_log, v_rcp, ...): LLVM's TRANS class
    "branch", "barrier", "waitcnt", "nop", "setprio", "endpgm",
    "writes_exec", "dpp_ok", "sdwa_ok", "packed",  # packed = VOP3P math
    "partial_dst", # may write part of a register (SDWA/op_sel dst), cdna-facts section 3
    "readlane",    # v_readlane/v_writelane/v_readfirstlane (lane-select hazards)
    "dot", "dgemm",  # v_dot* (own hazard rules); f64 MFMAs
    "flat", "scratch",  # FLAT-segment forms (bump vmcnt and lgkmcnt)
    "rtn",         # atomic returning its pre-op value
    "cache",       # cache-control instructions
)
