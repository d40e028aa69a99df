"""The hardware ``Target`` a kernel is generated for, passed explicitly (never global), built from
the isa tables rather than re-tabled here.

Where each fact comes from:
  * arch names, instruction set: ``isa.spec.ARCHES``, ``isa.tables.spec_table`` (``has``)
  * LDS bytes per workgroup, LDS banks, SIMDs, waves per SIMD, unified register file, latencies:
    ``isa.cycle.params`` (each value carries its cdna-facts / cdna-timing source tag)
  * MFMA forms per dtype pair (shape, operand/accumulator registers, arches): ``isa.mfma_shapes``;
    their pass counts: the arch's instruction table (``InstrSpec.passes_on``)
  * DS / MUBUF instruction offset ranges: the encoding field widths of ``isa.decode_fields``
  * what the passes ask per instruction (``spec_for``, ``spec_passes``) and per instruction pair
    (``hazard_rules``, ``mfma_passes``, ``hazard_wait``, ``required_wait_states``): the arch's
    ``isa.tables`` / ``isa.hazards`` answers (isa keeps taking arch names; the Target wraps it)
Facts no isa table holds (the 1024 work-items per workgroup, the 256/256 VGPR/AGPR split of the
unified file, the VGPR allocation granule) are stated here with their source. The isa tables are
imported when a ``Target`` is first built, not with this module (``asmgen --help`` stays light).

``target_of(arch)`` returns the (cached) ``Target`` of an arch name, or a ``ConfigError`` naming
the value and the known arches; it is the one place a user's arch name becomes a ``Target`` (the
kinds' configs call it; ``KernelIR``, the scheduler and the passes take the ``Target``, never a
name). ``Target(arch)`` builds an equal object. The element types are ``asmgen.dtypes``'s. The kinds' configurations live with their
kinds and carry a ``Target`` (``cfg.target``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from isa.decode_fields import FIELDS
from isa.spec import ARCHES as _ISA_ARCHES

from .dtypes import DTYPES, IN_DTYPES, OUT_DTYPES, DType, dtype_of
from .errors import ConfigError

ARCHES: tuple[str, ...] = tuple(_ISA_ARCHES)
# Named arches for data tables (fuzz campaigns, CLI defaults): CDNA3 and CDNA4.
CDNA3, CDNA4 = ARCHES
DEFAULT_ARCH = CDNA3

# cdna-facts section 1: 256 ArchVGPRs + 256 AccVGPRs per lane (the 512-register unified file of
# isa.cycle.params "vgprs_per_lane"), VGPRs allocated in granules of 8, at most 1024 work-items
# (16 waves of 64) per workgroup.
VGPR_MAX = 256
AGPR_MAX = 256
VGPR_GRANULE = 8
MAX_WAVES = 16
WAVE_SIZE = 64
SGPR_MAX = 102      # s0..s101 addressable by a kernel (cdna-facts section 1)


def _field_max(fmt: str, *names: str) -> int:
    bits = sum(FIELDS[fmt][n][1] for n in names)
    return (1 << bits) - 1


# DS offset: offset1:offset0, 16 bits unsigned; MUBUF offset: 12 bits unsigned (cdna-facts
# section 5; the encodings of isa.decode_fields).
DS_OFFSET_MAX = _field_max("DS", "offset0", "offset1")
MUBUF_OFFSET_MAX = _field_max("MUBUF", "offset")


@dataclass(frozen=True, slots=True)
class Latencies:
    """Load-to-use and result latencies in cycles, the cycle model's sourced ones
    (``isa.cycle.params``; ``src`` gives each value's tag). The scheduler's only latency table."""

    smem: int
    lds: int
    vmem: int           # L2 hit: what a prefetching kernel sees in steady state
    vmem_hbm: int
    mfma_clk_per_pass: int
    valu: int
    trans: int
    src: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MfmaForm:
    """One MFMA instruction of an arch for a pair of operand types (``isa.mfma_shapes`` row plus
    the arch's pass count)."""

    name: str
    m: int
    n: int
    k: int
    blocks: int
    a_type: str          # isa operand type name ("f16", "bf16", "fp8", "bf8", "i8", "f32", "f8f6f4")
    b_type: str
    acc_type: str        # "f32" | "i32"
    a_regs: int          # VGPRs per lane of A (and B); f8f6f4: the fp8 count
    cd_regs: int
    passes: int
    exclusive: bool      # only this arch has it (the gfx950 double-rate forms)
    scaled: str | None = None  # the block-scaled variant (v_mfma_scale_*) where the arch has one

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.m, self.n, self.k

    @property
    def cycles(self) -> int:
        return self.passes * 4

    @property
    def flops_per_pass(self) -> float:
        return 2.0 * self.m * self.n * self.k * self.blocks / self.passes


class Target:
    """The hardware a kernel is generated for. Equal (and hashed) by arch name."""

    __slots__ = ("_mfma", "_p", "arch", "latency")

    def __init__(self, arch: str = ARCHES[0]) -> None:
        if isinstance(arch, Target):
            arch = arch.arch
        if arch not in ARCHES:
            raise ConfigError(f"arch {arch!r} is not one of {ARCHES}")
        from isa.cycle.params import params_for
        self.arch = arch
        self._p = params_for(arch)
        p = self._p
        names = ("smem_latency", "lds_latency", "vmem_l2_latency", "vmem_hbm_latency",
                 "mfma_clk_per_pass", "valu_clk", "trans_clk")
        self.latency = Latencies(*(int(p.value(n)) for n in names),
                                 src={n: p.source(n) for n in names})
        self._mfma = _mfma_forms(arch)

    def __repr__(self) -> str:
        return f"Target({self.arch!r})"

    def __str__(self) -> str:
        return self.arch

    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and other.arch == self.arch

    def __hash__(self) -> int:
        return hash(("Target", self.arch))

    def __reduce__(self):
        return (Target, (self.arch,))

    # --- memory ---------------------------------------------------------------------------
    @property
    def lds_limit(self) -> int:
        """Bytes of LDS one workgroup may allocate (the CU's LDS, isa.cycle.params)."""
        return int(self._p.lds_bytes_cu)

    @property
    def lds_banks(self) -> int:
        return int(self._p.lds_banks)

    @property
    def bank_line_bytes(self) -> int:
        """Bytes of one LDS bank line: banks x 4 B (cdna-facts section 7)."""
        return self.lds_banks * 4

    ds_offset_max = DS_OFFSET_MAX
    mubuf_offset_max = MUBUF_OFFSET_MAX

    @property
    def cu_count(self) -> int:
        """CUs of the arch's default device (isa.cycle.params: 304 MI300X, 256 MI355X)."""
        return int(self._p.cus)

    # --- registers and occupancy ----------------------------------------------------------
    @property
    def regs_per_lane(self) -> int:
        return int(self._p.vgprs_per_lane)

    vgpr_max = VGPR_MAX
    agpr_max = AGPR_MAX
    sgpr_max = SGPR_MAX
    vgpr_granule = VGPR_GRANULE
    max_waves_per_workgroup = MAX_WAVES
    wave_size = WAVE_SIZE

    @property
    def simds_per_cu(self) -> int:
        return int(self._p.simds_per_cu)

    @property
    def max_waves_per_simd(self) -> int:
        return int(self._p.max_waves_per_simd)

    def waves_per_simd(self, regs: int) -> int:
        """Waves one SIMD holds when each uses ``regs`` unified registers per lane (VGPRs plus
        AGPRs, allocated in granules of 8): min(max waves, 512 // allocated), cdna-facts section 1."""
        alloc = max(self.vgpr_granule, -(-regs // self.vgpr_granule) * self.vgpr_granule)
        return min(self.max_waves_per_simd, self.regs_per_lane // alloc)

    # --- instructions ---------------------------------------------------------------------
    def has(self, mnemonic: str) -> bool:
        """Whether the arch's instruction table has ``mnemonic`` (a table key such as
        ``"buffer_load_dwordx4 lds"`` for the LDS-DMA variant)."""
        from isa.tables import spec_table
        return mnemonic in spec_table(self.arch)

    @property
    def lds_dma_bytes(self) -> tuple[int, ...]:
        """Bytes per lane of the arch's whole-dword, power-of-two LDS-DMA loads
        (``buffer_load_* ... lds``), widest first: (4,) on CDNA3, (16, 4) on CDNA4 (cdna-facts
        section 6; the dwordx3 form is left out, its 12 bytes are no power of two)."""
        from isa.tables import spec_table
        widths = {s.mem_bytes for k, s in spec_table(self.arch).items()
                  if k.startswith("buffer_load_") and k.endswith(" lds")}
        return tuple(sorted((w for w in widths if w >= 4 and not w & (w - 1)), reverse=True))

    def passes(self, mnemonic: str) -> int:
        from isa.tables import get_spec
        return get_spec(self.arch, mnemonic).passes_on(self.arch)

    def spec_for(self, instr):
        """The arch's ``InstrSpec`` of ``instr`` (its LDS-DMA / returning-atomic variant included;
        ``isa.tables.spec_for``)."""
        from isa.tables import spec_for
        return spec_for(self.arch, instr)

    def spec_passes(self, spec) -> int:
        """MFMA passes of ``spec`` on this arch (0 for a non-MFMA; ``InstrSpec.passes_on``)."""
        return spec.passes_on(self.arch)

    # --- hazards (the rules are data in ``isa.hazards``, selected by arch name) --------------
    def hazard_rules(self) -> tuple:
        """Every ``isa.hazards.HazardRule`` that applies on this arch."""
        from isa.hazards import rules
        return rules(self.arch)

    def mfma_passes(self, spec, instr) -> int:
        """Passes of one MFMA instance (``isa.hazards.mfma_passes``: the f8f6f4 forms without an
        fp8 operand take half)."""
        from isa.hazards import mfma_passes
        return mfma_passes(self.arch, spec, instr)

    def hazard_wait(self, rule, passes: int) -> int:
        """Wait states ``rule`` requires on this arch after a producer of ``passes`` MFMA passes."""
        return rule.wait(self.arch, passes)

    def required_wait_states(self, producer, consumer, view: str = "gen") -> int:
        """Wait states needed between ``producer`` and a directly following ``consumer``
        (``isa.hazards.required_wait_states``): view "gen" the generator's, "emu" the judge's."""
        from isa.hazards import required_wait_states
        return required_wait_states(self.arch, producer, consumer, view)

    # --- MFMA -----------------------------------------------------------------------------
    def mfmas(self, a: DType | str, b: DType | str | None = None) -> tuple[MfmaForm, ...]:
        """Every MFMA of this arch for A/B element types ``a``/``b`` (dtype objects or names),
        fastest first (FLOPs per pass, then larger M). Empty when the arch has none."""
        a = dtype_of(a)
        b = a if b is None else dtype_of(b)
        if self.arch not in a.arches or self.arch not in b.arches:
            return ()
        return tuple(f for f in self._mfma if _feeds(a, f.a_type) and _feeds(b, f.b_type))

    def mfma_shapes(self, a: DType | str = "f16", b: DType | str | None = None,
                    ) -> tuple[tuple[int, int, int], ...]:
        """(m, n, k) of the single-block MFMAs for the pair, native (fastest) first."""
        return tuple(f.shape for f in self.mfmas(a, b) if f.blocks == 1)

    def mfma_for(self, shape, a: DType | str, b: DType | str | None = None) -> MfmaForm:
        """The single-block MFMA of ``shape`` for the pair; ConfigError naming the valid ones."""
        shape = tuple(shape)
        for f in self.mfmas(a, b):
            if f.blocks == 1 and f.shape == shape:
                return f
        valid = ", ".join("x".join(map(str, s)) for s in self.mfma_shapes(a, b)) or "none"
        raise ConfigError(f"MFMA shape {'x'.join(map(str, shape))} is not available for "
                          f"{dtype_of(a).name}{'' if b is None else ' x ' + dtype_of(b).name} "
                          f"on {self.arch} (valid: {valid})")

    def default_mfma(self, a: DType | str = "f16", b: DType | str | None = None,
                     ) -> tuple[int, int, int]:
        shapes = self.mfma_shapes(a, b)
        if not shapes:
            raise ConfigError(f"{self.arch} has no MFMA for {dtype_of(a).name}")
        return shapes[0]

    def dtypes(self) -> tuple[str, ...]:
        """Names of the element types this arch has MFMAs for."""
        return tuple(n for n, d in DTYPES.items() if self.mfmas(d))


def _feeds(d: DType, mfma_type: str) -> bool:
    """Whether an MFMA operand of isa type ``mfma_type`` reads elements of ``d`` (the f8f6f4 forms
    read every type with a cbsz/blgp format code)."""
    return d.mfma_type == mfma_type or (mfma_type == "f8f6f4" and d.f8f6f4_code is not None)


@cache
def _mfma_forms(arch: str) -> tuple[MfmaForm, ...]:
    from isa.mfma_shapes import MFMA_TABLE
    from isa.tables import get_spec, spec_table
    others = [a for a in ARCHES if a != arch]
    table = spec_table(arch)
    out = []
    for name, i in MFMA_TABLE.items():
        if arch not in i.arches or i.scaled:   # a scaled form is its base form's ``scaled``
            continue
        out.append(MfmaForm(name, i.m, i.n, i.k, i.blocks, i.a_type, i.b_type, i.out_type,
                            i.a_regs, i.cd_regs, get_spec(arch, name).passes_on(arch),
                            not any(o in i.arches for o in others),
                            scaled if (scaled := name.replace("v_mfma_", "v_mfma_scale_")) in table
                            else None))
    out.sort(key=lambda f: (-f.flops_per_pass, -f.m))
    return tuple(out)


@cache
def target_of(arch: str | Target) -> Target:
    """The ``Target`` of an arch name (cached; a ``Target`` is returned as is)."""
    if isinstance(arch, Target):
        return arch
    return Target(arch)


# --- compatibility views (read-only tables for code that still indexes by arch name) ---------
DTYPE_BYTES = {n: d.bytes for n, d in DTYPES.items() if d.bits % 8 == 0}
_VIEWS = {
    "LDS_LIMIT": lambda: {a: target_of(a).lds_limit for a in ARCHES},
    "BANK_LINE_BYTES": lambda: {a: target_of(a).bank_line_bytes for a in ARCHES},
    "REGS_PER_LANE": lambda: target_of(ARCHES[0]).regs_per_lane,
    "MFMA_SHAPES": lambda: {a: target_of(a).mfma_shapes("f16") for a in ARCHES},
}


def __getattr__(name: str):
    """The views above, built from the isa tables on first use."""
    if name in _VIEWS:
        value = globals()[name] = _VIEWS[name]()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["AGPR_MAX", "ARCHES", "CDNA3", "CDNA4", "DEFAULT_ARCH", "DS_OFFSET_MAX", "DTYPE_BYTES", "IN_DTYPES",
           "MAX_WAVES", "MUBUF_OFFSET_MAX", "OUT_DTYPES",
           "VGPR_MAX", "Latencies", "MfmaForm", "Target", "target_of"]
