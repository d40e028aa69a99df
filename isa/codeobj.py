"""Read an AMDGPU code object (ELF64 ``.hsaco``): sections, symbols, kernels, descriptors, metadata.

Standard library only (``struct``), and nothing from asmgen: the emulator loads any gfx942/gfx950
code object through this, including ones LLVM compiled from HIP or OpenCL.

Facts used (LLVM ``docs/AMDGPUUsage.rst``, "ELF Code Object", "Kernel Descriptor", "Code Object V5
Metadata"; ``llvm/include/llvm/Support/AMDHSAKernelDescriptor.h``; cdna-facts section 8):
- a kernel ``name`` is an ``STT_FUNC`` symbol in ``.text``; its 64-byte kernel descriptor is the
  ``STT_OBJECT`` symbol ``name.kd`` in ``.rodata``; the entry point is the descriptor's address plus
  ``kernel_code_entry_byte_offset``;
- the metadata is a ``NT_AMDGPU_METADATA`` (type 32) note, owner ``AMDGPU``, MessagePack encoded;
- ``e_flags`` bits 7:0 are the machine (gfx942 = 0x4c, gfx950 = 0x4f), bits 9:8 xnack and 11:10
  sramecc (0 unsupported, 1 any, 2 off, 3 on) for code object v4+; EI_ABIVERSION 2/3/4 = v4/v5/v6.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .errors import CodeObjectError
from .msgpack_lite import unpackb

EM_AMDGPU = 224
NT_AMDGPU_METADATA = 32
SHT_SYMTAB, SHT_NOTE, SHT_DYNSYM, SHT_NOBITS = 2, 7, 11, 8
SHF_ALLOC = 0x2
STT_OBJECT, STT_FUNC = 1, 2

# EF_AMDGPU_MACH values (AMDGPUUsage "AMDGPU ELF Header"; checked with llvm-mc 22 for these).
MACH = {0x2c: "gfx900", 0x2f: "gfx906", 0x30: "gfx908", 0x3f: "gfx90a", 0x40: "gfx940",
        0x4b: "gfx941", 0x4c: "gfx942", 0x4f: "gfx950"}
FEATURE_SETTING = {0: "unsupported", 1: "any", 2: "off", 3: "on"}

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    entsize: int
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    type: int      # STT_*
    bind: int      # STB_*
    shndx: int


# --- kernel descriptor ---------------------------------------------------------------------------
# Byte layout (AMDHSAKernelDescriptor.h, kernel_descriptor_t): 0 group_segment_fixed_size u32,
# 4 private_segment_fixed_size u32, 8 kernarg_size u32, 12 reserved, 16 kernel_code_entry_byte_offset
# i64, 24..43 reserved, 44 compute_pgm_rsrc3, 48 rsrc1, 52 rsrc2, 56 kernel_code_properties u16,
# 58 kernarg_preload u16, 60 reserved.
_KD = struct.Struct("<IIIIq20sIIIHHI")
# arches whose VGPR file is unified (ArchVGPRs + AccVGPRs, 512 per lane, granule 8) and that have
# COMPUTE_PGM_RSRC3.ACCUM_OFFSET (AMDGPUUsage "compute_pgm_rsrc1 for GFX6-GFX12", "rsrc3 GFX90A").
GFX90A_PLUS = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"})
# Order and width (SGPRs) of the user SGPRs the kernel_code_properties bits enable
# (AMDGPUUsage "Initial Kernel Execution State"; cdna-facts section 8).
USER_SGPR_ORDER = (("private_segment_buffer", 4), ("dispatch_ptr", 2), ("queue_ptr", 2),
                   ("kernarg_segment_ptr", 2), ("dispatch_id", 2), ("flat_scratch_init", 2),
                   ("private_segment_size", 1))


def _bits(value: int, shift: int, width: int) -> int:
    return (value >> shift) & ((1 << width) - 1)


@dataclass(frozen=True)
class KernelDescriptor:
    """A decoded 64-byte kernel descriptor. Raw words are kept; fields are properties over them."""

    arch: str
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    compute_pgm_rsrc1: int
    compute_pgm_rsrc2: int
    compute_pgm_rsrc3: int
    kernel_code_properties: int
    kernarg_preload: int
    raw: bytes = field(repr=False, default=b"")

    @classmethod
    def decode(cls, raw: bytes, arch: str) -> KernelDescriptor:
        if len(raw) != 64:
            raise CodeObjectError(f"a kernel descriptor is 64 bytes, got {len(raw)}")
        (group, private, kernarg, _r0, entry, _r1, rsrc3, rsrc1, rsrc2, kcp, preload,
         _r3) = _KD.unpack(raw)
        return cls(arch, group, private, kernarg, entry, rsrc1, rsrc2, rsrc3, kcp, preload, bytes(raw))

    # compute_pgm_rsrc1 ------------------------------------------------------------------------
    @property
    def granulated_workitem_vgpr_count(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 0, 6)

    @property
    def granulated_wavefront_sgpr_count(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 6, 4)

    @property
    def priority(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 10, 2)

    @property
    def float_round_mode_32(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 12, 2)

    @property
    def float_round_mode_16_64(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 14, 2)

    @property
    def float_denorm_mode_32(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 16, 2)

    @property
    def float_denorm_mode_16_64(self) -> int:
        return _bits(self.compute_pgm_rsrc1, 18, 2)

    @property
    def enable_dx10_clamp(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc1, 21, 1))

    @property
    def enable_ieee_mode(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc1, 23, 1))

    @property
    def fp16_ovfl(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc1, 26, 1))

    # compute_pgm_rsrc2 ------------------------------------------------------------------------
    @property
    def enable_private_segment(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc2, 0, 1))

    @property
    def user_sgpr_count(self) -> int:
        return _bits(self.compute_pgm_rsrc2, 1, 5)

    @property
    def enable_trap_handler(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc2, 6, 1))

    @property
    def enable_sgpr_workgroup_id(self) -> tuple[bool, bool, bool]:
        return tuple(bool(_bits(self.compute_pgm_rsrc2, 7 + i, 1)) for i in range(3))  # type: ignore

    @property
    def enable_sgpr_workgroup_id_x(self) -> bool:
        return self.enable_sgpr_workgroup_id[0]

    @property
    def enable_sgpr_workgroup_id_y(self) -> bool:
        return self.enable_sgpr_workgroup_id[1]

    @property
    def enable_sgpr_workgroup_id_z(self) -> bool:
        return self.enable_sgpr_workgroup_id[2]

    @property
    def enable_sgpr_workgroup_info(self) -> bool:
        return bool(_bits(self.compute_pgm_rsrc2, 10, 1))

    @property
    def enable_vgpr_workitem_id(self) -> int:
        """0: x only, 1: x and y, 2: x, y and z (packed into v0 on gfx90a+, cdna-facts section 8)."""
        return _bits(self.compute_pgm_rsrc2, 11, 2)

    @property
    def granulated_lds_size(self) -> int:
        return _bits(self.compute_pgm_rsrc2, 15, 9)

    @property
    def exception_enables(self) -> int:
        """rsrc2 bits 13, 14 and 24..30 (address watch, memory, IEEE exceptions) as one mask."""
        return self.compute_pgm_rsrc2 & ((3 << 13) | (0x7F << 24))

    # compute_pgm_rsrc3 (gfx90a+) ----------------------------------------------------------------
    @property
    def accum_offset(self) -> int | None:
        """First AccVGPR's index in the unified file: (ACCUM_OFFSET + 1) * 4; None before gfx90a."""
        if self.arch not in GFX90A_PLUS:
            return None
        return (_bits(self.compute_pgm_rsrc3, 0, 6) + 1) * 4

    @property
    def tg_split(self) -> bool:
        return self.arch in GFX90A_PLUS and bool(_bits(self.compute_pgm_rsrc3, 16, 1))

    # kernel_code_properties -------------------------------------------------------------------
    def _kcp(self, bit: int) -> bool:
        return bool(_bits(self.kernel_code_properties, bit, 1))

    @property
    def enable_sgpr_private_segment_buffer(self) -> bool:
        return self._kcp(0)

    @property
    def enable_sgpr_dispatch_ptr(self) -> bool:
        return self._kcp(1)

    @property
    def enable_sgpr_queue_ptr(self) -> bool:
        return self._kcp(2)

    @property
    def enable_sgpr_kernarg_segment_ptr(self) -> bool:
        return self._kcp(3)

    @property
    def enable_sgpr_dispatch_id(self) -> bool:
        return self._kcp(4)

    @property
    def enable_sgpr_flat_scratch_init(self) -> bool:
        return self._kcp(5)

    @property
    def enable_sgpr_private_segment_size(self) -> bool:
        return self._kcp(6)

    @property
    def enable_wavefront_size32(self) -> bool:
        return self._kcp(10)

    @property
    def uses_dynamic_stack(self) -> bool:
        return self._kcp(11)

    @property
    def kernarg_preload_spec_length(self) -> int:
        """Kernarg dwords preloaded into user SGPRs (gfx940+), after the other user SGPRs."""
        return _bits(self.kernarg_preload, 0, 7)

    @property
    def kernarg_preload_spec_offset(self) -> int:
        """Dword offset into the kernarg segment of the first preloaded dword."""
        return _bits(self.kernarg_preload, 7, 9)

    # derived budgets --------------------------------------------------------------------------
    @property
    def vgpr_alloc(self) -> int:
        """VGPRs per lane the descriptor allocates: granule 8 over the unified ArchVGPR+AccVGPR file on
        gfx90a+ (AMDGPUUsage rsrc1 table, GFX90A/GFX942 row), granule 4 before."""
        gran = 8 if self.arch in GFX90A_PLUS else 4
        return (self.granulated_workitem_vgpr_count + 1) * gran

    @property
    def arch_vgpr_budget(self) -> int:
        """ArchVGPRs v0.. usable. On gfx90a+ the ArchVGPRs and AccVGPRs share one unified file and
        the budget is the whole allocation (at most v255): ACCUM_OFFSET only says where a0 sits in
        that file (AMDGPUUsage compute_pgm_rsrc3 GFX90A/GFX942 "ACCUM_OFFSET: offset of a first
        AccVGPR in the unified register file"; CDNA3 ISA guide, "Unified VGPR file"). AMD's own
        production kernels (aiter, gfx942) use v160-v255 with accum_offset 160 and no AGPRs. A
        v_k at or beyond accum_offset is the same register as a_(k - accum_offset)."""
        return min(self.vgpr_alloc, 256)

    @property
    def agpr_budget(self) -> int:
        """AccVGPRs a0.. usable: what the allocation holds beyond accum_offset on gfx90a+."""
        if self.accum_offset is None:
            return 0
        return max(0, min(self.vgpr_alloc - self.accum_offset, 256))

    @property
    def sgpr_alloc(self) -> int:
        """SGPRs the descriptor accounts for: (granule + 1) * 8, as LLVM encodes it on gfx9 (encoding
        granule 8); this count includes the 6 SGPRs LLVM adds for VCC, FLAT_SCRATCH and XNACK_MASK."""
        return (self.granulated_wavefront_sgpr_count + 1) * 8

    def user_sgpr_layout(self) -> dict[str, int]:
        """First SGPR of each enabled user SGPR, in hardware order (then preloaded kernargs)."""
        out, nxt = {}, 0
        for i, (name, width) in enumerate(USER_SGPR_ORDER):
            if self._kcp(i):
                out[name] = nxt
                nxt += width
        if self.kernarg_preload_spec_length:
            out["kernarg_preload"] = nxt
        return out

    def system_sgpr_layout(self) -> dict[str, int]:
        """SGPR of each enabled system value; they start right after the ``user_sgpr_count`` user SGPRs:
        workgroup id x, y, z, then workgroup info (AMDGPUUsage "Initial Kernel Execution State")."""
        out, nxt = {}, self.user_sgpr_count
        for axis, on in zip("xyz", self.enable_sgpr_workgroup_id, strict=True):
            if on:
                out[f"workgroup_id_{axis}"] = nxt
                nxt += 1
        if self.enable_sgpr_workgroup_info:
            out["workgroup_info"] = nxt
        return out


@dataclass(frozen=True)
class KernelInfo:
    """One kernel: its machine code, where it sits, its decoded descriptor and its metadata map."""

    name: str
    code: bytes = field(repr=False)
    code_offset: int               # file offset of the first instruction
    code_address: int              # virtual address of the first instruction
    descriptor: KernelDescriptor
    descriptor_address: int
    metadata: dict                 # this kernel's entry of amdhsa.kernels ({} when absent)

    @property
    def kernarg_segment_size(self) -> int:
        return int(self.metadata.get(".kernarg_segment_size", self.descriptor.kernarg_size))

    @property
    def args(self) -> list:
        return list(self.metadata.get(".args", []))


class CodeObject:
    """A parsed ``.hsaco``. Build with ``CodeObject.from_bytes(data)``."""

    def __init__(self, data: bytes, e_flags: int, abi_version: int, sections: dict[str, Section],
                 symbols: list[Symbol], metadata: dict | None) -> None:
        self.data = data
        self.e_flags = e_flags
        self.abi_version = abi_version
        self.sections = sections
        self.symbols = symbols
        self.metadata = metadata
        self.arch = self._arch()
        self.kernels = self._kernels()

    # --- construction ---------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> CodeObject:
        data = bytes(data)
        if len(data) < _EHDR.size or data[:4] != b"\x7fELF":
            raise CodeObjectError(f"not an ELF file (first bytes {data[:4]!r}, {len(data)} bytes)")
        if data[4] != 2 or data[5] != 1:
            raise CodeObjectError(f"ELF class {data[4]} / data encoding {data[5]}: need ELF64 little endian")
        (ident, _type, machine, _ver, _entry, _phoff, shoff, e_flags, _ehsize, _phentsize, _phnum,
         shentsize, shnum, shstrndx) = _EHDR.unpack_from(data, 0)
        if machine != EM_AMDGPU:
            raise CodeObjectError(f"e_machine {machine} is not EM_AMDGPU ({EM_AMDGPU})")
        if shentsize != _SHDR.size or shoff + shnum * shentsize > len(data):
            raise CodeObjectError(f"section header table (offset {shoff}, {shnum} x {shentsize} B) is "
                                  f"outside the {len(data)}-byte file")
        raw = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
        if not 0 <= shstrndx < shnum:
            raise CodeObjectError(f"e_shstrndx {shstrndx} is not a section index (< {shnum})")
        shstr = _slice(data, raw[shstrndx][4], raw[shstrndx][5], "section name table")
        sections: dict[str, Section] = {}
        by_index: list[Section] = []
        for i, (name, typ, flags, addr, off, size, link, _info, _align, entsize) in enumerate(raw):
            body = b"" if typ == SHT_NOBITS else _slice(data, off, size, f"section {i}")
            sec = Section(_cstr(shstr, name), typ, flags, addr, off, size, link, entsize, body)
            by_index.append(sec)
            if sec.name and sec.name not in sections:
                sections[sec.name] = sec
        symbols = _symbols(by_index)
        metadata = _metadata(by_index)
        return cls(data, e_flags, ident[8], sections, symbols, metadata)

    # --- derived views --------------------------------------------------------------------------
    @property
    def code_object_version(self) -> int:
        """Code object version from EI_ABIVERSION (2 -> v4, 3 -> v5, 4 -> v6)."""
        return self.abi_version + 2

    @property
    def xnack(self) -> str:
        return FEATURE_SETTING[(self.e_flags >> 8) & 3]

    @property
    def sramecc(self) -> str:
        return FEATURE_SETTING[(self.e_flags >> 10) & 3]

    @property
    def target(self) -> str:
        """The metadata's amdhsa.target, e.g. ``amdgcn-amd-amdhsa--gfx942`` ('' when absent)."""
        return str((self.metadata or {}).get("amdhsa.target", ""))

    def _arch(self) -> str:
        mach = self.e_flags & 0xFF
        if mach in MACH:
            return MACH[mach]
        tail = self.target.rsplit("--", 1)[-1].split(":")[0]
        if tail.startswith("gfx"):
            return tail
        raise CodeObjectError(f"unknown EF_AMDGPU_MACH 0x{mach:02x} and no amdhsa.target in the metadata")

    def address_to_offset(self, addr: int) -> int:
        """File offset of a virtual address inside an allocated section."""
        for sec in self.sections.values():
            if sec.flags & SHF_ALLOC and sec.type != SHT_NOBITS and sec.addr <= addr < sec.addr + sec.size:
                return sec.offset + (addr - sec.addr)
        raise CodeObjectError(f"address 0x{addr:x} is in no allocated section")

    def _kernels(self) -> dict[str, KernelInfo]:
        md_by_name = {}
        for k in (self.metadata or {}).get("amdhsa.kernels", []) or []:
            if isinstance(k, dict) and ".name" in k:
                md_by_name[k[".name"]] = k
        funcs = sorted((s for s in self.symbols if s.type == STT_FUNC), key=lambda s: s.value)
        out: dict[str, KernelInfo] = {}
        seen = set()
        for sym in self.symbols:
            if not (sym.name.endswith(".kd") and sym.type == STT_OBJECT) or sym.name in seen:
                continue
            seen.add(sym.name)
            name = sym.name[:-3]
            if sym.size not in (0, 64):
                raise CodeObjectError(f"kernel descriptor {sym.name} is {sym.size} bytes, not 64")
            kd_off = self.address_to_offset(sym.value)
            kd = KernelDescriptor.decode(_slice(self.data, kd_off, 64, sym.name), self.arch)
            entry = sym.value + kd.kernel_code_entry_byte_offset
            code_off = self.address_to_offset(entry)
            size = self._code_size(name, entry, funcs)
            out[name] = KernelInfo(name, _slice(self.data, code_off, size, f"code of {name}"), code_off,
                                   entry, kd, sym.value, dict(md_by_name.get(name, {})))
        return dict(sorted(out.items()))

    def _code_size(self, name: str, entry: int, funcs: list[Symbol]) -> int:
        own = [s for s in funcs if s.value == entry]
        named = [s for s in own if s.name == name]
        sym = (named or own or [None])[0]
        if sym is not None and sym.size:
            return sym.size
        # No size recorded: the code runs to the next function or the end of its section.
        text = next((s for s in self.sections.values() if s.flags & SHF_ALLOC and s.addr <= entry
                     < s.addr + s.size), None)
        if text is None:
            raise CodeObjectError(f"entry point 0x{entry:x} of {name} is in no section")
        end = text.addr + text.size
        later = [s.value for s in funcs if entry < s.value < end]
        return (min(later) if later else end) - entry

    def kernel(self, name: str | None = None) -> KernelInfo:
        """The kernel called ``name`` (or the only one when ``name`` is None)."""
        if name is None:
            if len(self.kernels) != 1:
                raise CodeObjectError(f"code object has {len(self.kernels)} kernels "
                                      f"({sorted(self.kernels)}); name one")
            return next(iter(self.kernels.values()))
        if name not in self.kernels:
            raise CodeObjectError(f"no kernel {name!r} in the code object (have {sorted(self.kernels)})")
        return self.kernels[name]


def _slice(data: bytes, off: int, size: int, what: str) -> bytes:
    if off < 0 or size < 0 or off + size > len(data):
        raise CodeObjectError(f"{what} (offset {off}, {size} bytes) is outside the {len(data)}-byte file")
    return data[off:off + size]


def _cstr(table: bytes, off: int) -> str:
    if off >= len(table):
        raise CodeObjectError(f"string offset {off} is outside its {len(table)}-byte table")
    end = table.find(b"\0", off)
    return table[off:end if end >= 0 else len(table)].decode("utf-8", "replace")


def _symbols(sections: list[Section]) -> list[Symbol]:
    tab = next((s for s in sections if s.type == SHT_SYMTAB), None) or \
        next((s for s in sections if s.type == SHT_DYNSYM), None)
    if tab is None:
        return []
    if not 0 <= tab.link < len(sections):
        raise CodeObjectError(f"symbol table links to string table {tab.link}, which does not exist")
    strtab = sections[tab.link].data
    out = []
    for i in range(len(tab.data) // _SYM.size):
        name, info, _other, shndx, value, size = _SYM.unpack_from(tab.data, i * _SYM.size)
        if i == 0:
            continue
        out.append(Symbol(_cstr(strtab, name), value, size, info & 0xF, info >> 4, shndx))
    return out


def _metadata(sections: list[Section]) -> dict | None:
    for sec in sections:
        if sec.type != SHT_NOTE:
            continue
        for owner, typ, desc in iter_notes(sec.data):
            if owner == "AMDGPU" and typ == NT_AMDGPU_METADATA:
                md = unpackb(desc)
                if not isinstance(md, dict):
                    raise CodeObjectError(f"AMDGPU metadata is a {type(md).__name__}, not a map")
                return md
    return None


def iter_notes(data: bytes):
    """(owner, type, descriptor bytes) of each ELF note in a SHT_NOTE section (4-byte aligned)."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, typ = struct.unpack_from("<III", data, pos)
        pos += 12
        name = _slice(data, pos, namesz, "note name").rstrip(b"\0").decode("utf-8", "replace")
        pos += (namesz + 3) & ~3
        desc = _slice(data, pos, descsz, "note descriptor")
        pos += (descsz + 3) & ~3
        yield name, typ, desc


def load(path: str) -> CodeObject:
    """Read a ``.hsaco`` file."""
    with open(path, "rb") as f:
        return CodeObject.from_bytes(f.read())


__all__ = [
    "MACH",
    "CodeObject",
    "KernelDescriptor",
    "KernelInfo",
    "Section",
    "Symbol",
    "iter_notes",
    "load",
]
