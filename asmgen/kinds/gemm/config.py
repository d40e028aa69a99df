"""The ``GemmConfig`` of one GEMM kernel: frozen and validated.

Every limit checked here raises ``ConfigError`` naming the bad value and the limit, before any
instruction is built: LDS size per workgroup, the 512-register unified file, MFMA shapes per arch,
divisibility of the tile by waves, MFMA shape and global-load vectors, DS/MUBUF offset ranges
(the arch tables are ``asmgen.target``'s).

GEMM: ``C = alpha * op(A) @ op(B) + beta * C`` (+ optional bias over N and activation).
``layout`` names op(A) op(B): A is MxK row-major for ``N`` (KxM for ``T``), B is KxN row-major for
``N`` (NxK for ``T``) (design.md, Contracts). C is MxN row-major with leading dimension ldc.
``m, n, k`` are the sizes the kernel is generated for; they are kernel arguments too, and the
kernel is correct for any runtime sizes that keep the alignment assumptions recorded in
``vec_a``/``vec_b`` (elements per global load along the contiguous dimension).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from isa.mfma_shapes import SCALE_BLOCK

from ...dtypes import DType, dtype_of
from ...errors import ConfigError
from ...target import DEFAULT_ARCH, IN_DTYPES, OUT_DTYPES, Target, target_of
from .budget import check_vmcnt, vgpr_estimate
from .options import (  # noqa: F401  (the vocabularies are re-exported)
    ACTIVATIONS,
    ARRANGEMENTS,
    FP8_OUT_DTYPES,
    LAYOUTS,
    LOWP_DTYPES,
    MN_WIDTHS,
    MX_DTYPES,
    SCALE_A_MODES,
    SCALE_B_MODES,
    VEC_WIDTHS,
    _arch_has,
    _fp8_outs,
    _pow2,
    _triple,
)


@dataclass(frozen=True, slots=True)
class GemmConfig:
    """One GEMM kernel's configuration (template parameters; the schedule recipe is separate)."""

    m: int
    n: int
    k: int
    dtype: str = "f16"
    arch: str = DEFAULT_ARCH
    layout: str = "NN"
    out_dtype: str | None = None          # default: dtype
    tile: tuple[int, int, int] = (64, 64, 32)  # MT0 (rows of C) x MT1 (cols of C) x DepthU (K)
    waves: tuple[int, int] = (2, 2)          # waves along M x along N
    mfma: tuple[int, int, int] | None = None  # default: the arch's first shape
    prefetch: int = 1                        # K-tiles resident in LDS ahead of the computed one
    staging: int = 1                         # K-tiles in flight in VGPRs (global -> VGPR -> LDS)
    arrangement: str = "default"             # the K loop's layout (ARRANGEMENTS, kinds.gemm.template)
    frag_buffers: int = 0                    # MFMA operand register sets per tile (0: one per K-step)
    lda: int | None = None                # default: the packed leading dimension
    ldb: int | None = None
    ldc: int | None = None
    activation: str = "none"
    bias: bool = False
    lds_pad: int | None = None            # f16 elements of padding per LDS row (None: auto)
    vec_a: int | None = None              # elements per global load of A (None: auto)
    vec_b: int | None = None
    direct_to_lds: bool = False              # K-contiguous operands: buffer_load ... lds (M0)
    nontemporal: int = 0                     # cache bits of the A/B loads: sc0=1 | sc1=2 | nt=4
    bake_sizes: bool = False                 # M, N, K, lda, ldb, ldc as constants, not kernel args
    k_multiple: int = 1                      # runtime K is a multiple of this (kernel contract)
    lds_swizzle: bool = False                # XOR-swizzled unpadded LDS rows instead of padding
    dtype_b: str | None = None               # B's element type when it differs from A's (fp8 x bf8)
    scale_a_mode: str = "tensor"             # scale_a: f32 argument | device pointer | per row (M)
    scale_b_mode: str = "tensor"             # scale_b: f32 argument | device pointer | per column (N)
    target: Target = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        st = object.__setattr__
        if (not isinstance(self.nontemporal, int) or isinstance(self.nontemporal, bool)
                or not 0 <= self.nontemporal <= 7):
            # Tensile's NonTemporal 0..7 = sc0(1) | sc1(2) | nt(4) on gfx942 (cdna-facts section 5)
            raise ConfigError(f"nontemporal={self.nontemporal!r} is not a cache-bit mask 0..7 "
                              f"(sc0=1, sc1=2, nt=4)")
        for name in ("m", "n", "k"):
            val = getattr(self, name)
            if not isinstance(val, int) or isinstance(val, bool) or val < 1:
                raise ConfigError(f"{name}={val!r} must be an integer >= 1")
            if val >= (1 << 24):
                raise ConfigError(f"{name}={val} exceeds 2**24 (32-bit buffer offsets)")
        if self.dtype not in IN_DTYPES + LOWP_DTYPES + MX_DTYPES:
            raise ConfigError(f"dtype {self.dtype!r} is not one of "
                              f"{IN_DTYPES + LOWP_DTYPES + MX_DTYPES}")
        # the one arch-name -> Target step (ConfigError naming the value and the known arches)
        st(self, "target", target_of(self.arch))
        _arch_has(self.target, self.dtype)
        self._check_dtype_b()
        self._check_scale_modes()
        if self.out_dtype is None:   # 8-bit inputs: f32 (fp8 outputs only when asked for)
            st(self, "out_dtype", {"i8": "i32"}.get(self.dtype, "f32") if self.dtype in
               LOWP_DTYPES + MX_DTYPES else self.dtype)
        outs = OUT_DTYPES + (("i32",) if self.dtype == "i8" else ()) + _fp8_outs(self.target)
        if self.out_dtype not in outs:
            raise ConfigError(f"out_dtype {self.out_dtype!r} is not one of {outs} (input "
                              f"{self.dtype}, {self.arch})")
        if self.out_dtype == "i32" and (self.bias or self.activation != "none"):
            raise ConfigError("an i32 output is the integer accumulator: no bias or activation "
                              f"(bias={self.bias}, activation={self.activation!r})")
        if self.layout not in LAYOUTS:
            raise ConfigError(f"layout {self.layout!r} is not one of {LAYOUTS}")
        if self.activation not in ACTIVATIONS:
            raise ConfigError(f"activation {self.activation!r} is not one of {ACTIVATIONS}")
        st(self, "tile", _triple(self.tile, "tile", 3))
        st(self, "waves", _triple(self.waves, "waves", 2))
        if self.mfma is None:
            st(self, "mfma", self._default_mfma())
        st(self, "mfma", _triple(self.mfma, "mfma", 3))
        self.target.mfma_for(self.mfma, self.dtype, self.dtype_b)   # ConfigError: valid shapes
        if self.prefetch not in (1, 2, 3):
            raise ConfigError(f"prefetch depth {self.prefetch} is not 1, 2 or 3")
        if self.staging not in (1, 2):
            raise ConfigError(f"staging {self.staging} is not 1 or 2 (VGPR sets of K-tiles in "
                              f"flight)")
        self._check_pipeline()
        if self.mx:
            self._check_mx()
        ta, tb = self.layout[0] == "T", self.layout[1] == "T"
        # default leading dimensions: the packed row length of each row-major matrix (fp4 rows
        # packed along M / N: an even number of elements, whole bytes)
        even = (lambda x: x + x % 2) if self.in_type.bits < 8 else (lambda x: x)
        if self.lda is None:
            st(self, "lda", even(self.m) if ta else self.k)
        if self.ldb is None:
            st(self, "ldb", self.k if tb else even(self.n))
        if self.ldc is None:
            st(self, "ldc", self.n)
        for name, lo in (("lda", self.m if ta else self.k), ("ldb", self.k if tb else self.n),
                         ("ldc", self.n)):
            if getattr(self, name) < lo:
                raise ConfigError(f"{name}={getattr(self, name)} is smaller than the row length {lo}")
            if name != "ldc" and self.in_type.bits < 8 and getattr(self, name) % 2:
                raise ConfigError(f"{name}={getattr(self, name)} is odd: {self.dtype} rows are "
                                  f"E2M1 pairs packed in bytes (an even number of elements)")
        if (not isinstance(self.k_multiple, int) or isinstance(self.k_multiple, bool)
                or not _pow2(self.k_multiple) or self.k_multiple > 1 << 16):
            raise ConfigError(f"k_multiple={self.k_multiple!r} is not a power of two in 1..65536")
        if self.k % self.k_multiple:
            raise ConfigError(f"k_multiple={self.k_multiple} does not divide K={self.k}")
        if self.lds_swizzle:
            if self.lds_pad not in (None, 0):
                raise ConfigError(f"lds_swizzle replaces padding: lds_pad={self.lds_pad} must be 0 "
                                  f"or unset")
            st(self, "lds_pad", 0)
        if self.direct_to_lds:
            self._resolve_direct_to_lds()
        self._check_extents()
        self._check_tile()
        self._check_vectors()
        self._check_swizzle()
        self._check_resources()

    def _check_dtype_b(self) -> None:
        """A different B type: an fp8/bf8 pair of this arch with an MFMA for it (v_mfma_f32_*_
        fp8_bf8 / bf8_fp8); B's type equal to A's is the plain config (dtype_b None)."""
        st = object.__setattr__
        if self.dtype_b is None or self.dtype_b == self.dtype:
            st(self, "dtype_b", None)
            return
        if self.dtype_b not in LOWP_DTYPES:
            raise ConfigError(f"dtype_b {self.dtype_b!r} is not one of {LOWP_DTYPES}")
        _arch_has(self.target, self.dtype_b)
        if not any("f8f6f4" not in f.name
                   for f in self.target.mfmas(self.dtype, self.dtype_b)):
            raise ConfigError(f"{self.arch} has no MFMA for A {self.dtype} x B {self.dtype_b} "
                              f"(mixed pairs: fp8 x bf8 of one arch's encodings)")

    def _check_scale_modes(self) -> None:
        for name, modes in (("scale_a_mode", SCALE_A_MODES), ("scale_b_mode", SCALE_B_MODES)):
            if getattr(self, name) not in modes:
                raise ConfigError(f"{name} {getattr(self, name)!r} is not one of {modes}")
        if (self.scale_a_mode, self.scale_b_mode) != ("tensor", "tensor") and not self.scaled:
            raise ConfigError(f"scale_a/scale_b modes ({self.scale_a_mode}, {self.scale_b_mode}) "
                              f"need a scaled kernel: 8-bit inputs, output not i32 (input "
                              f"{self.dtype}, output {self.out_dtype})")

    # -- derived sizes ------------------------------------------------------------------------
    @property
    def b_type(self) -> DType:
        """The element type of B (A's unless ``dtype_b`` is set)."""
        return dtype_of(self.dtype_b or self.dtype)

    @property
    def scaled(self) -> bool:
        """Whether the kernel takes per-tensor scales ``scale_a``/``scale_b`` (8-bit inputs, not
        with the raw i32 output of i8, not MX types, whose scales are blocks):
        C = alpha * scale_a * scale_b * op(A) @ op(B) + beta * C (+ bias)."""
        return self.in_type.bits == 8 and self.out_dtype != "i32" and not self.mx

    @property
    def mx(self) -> bool:
        """Whether A and B carry MX block scales (``scale_a`` [M, K/32], ``scale_b`` [N, K/32]
        E8M0 buffers, kinds.gemm.mxscale)."""
        return self.in_type.scale is not None

    @property
    def element_dtype(self) -> str:
        """The dtype of A's and B's elements in memory (an MX type's element format)."""
        return {"mxfp8": "fp8_e4m3", "mxfp4": "u8"}.get(self.dtype, self.dtype)

    @property
    def in_type(self) -> DType:
        """The element type of A and B (``asmgen.dtypes``)."""
        return dtype_of(self.dtype)

    @property
    def out_type(self) -> DType:
        """The element type of C."""
        return dtype_of(self.out_dtype)

    @property
    def threads(self) -> int:
        return 64 * self.waves[0] * self.waves[1]

    @property
    def wave_tile(self) -> tuple[int, int]:
        return self.tile[0] // self.waves[0], self.tile[1] // self.waves[1]

    @property
    def blocks(self) -> tuple[int, int]:
        """MFMA blocks per wave along M and N."""
        wm, wn = self.wave_tile
        return wm // self.mfma[0], wn // self.mfma[1]

    @property
    def k_per_lane(self) -> int:
        """K elements per lane in one MFMA operand: 4 (gfx942 forms) or 8 (gfx950 x16/x32 forms)
        (cdna-facts section 2.2: lane l holds k = kpl * (l // m) .. + kpl - 1)."""
        return self.mfma[2] * self.mfma[0] // 64

    @property
    def k_run(self) -> int:
        """K elements of one contiguous run of a lane's MFMA operand: ``k_per_lane``, except for
        the 8-bit operands of gfx950's f8f6f4 forms, whose lanes hold two runs of 16: lane group
        g = lane // m takes k = 16 g .. 16 g + 15 (VGPRs 0-3) and K/2 + 16 g .. (VGPRs 4-7) of the
        K-step (AMD CDNA4 ISA guide section 7.1.5.1, FP8 tables; ``isa.mfma_layout.ab_flat``)."""
        form = self.target.mfma_for(self.mfma, self.dtype, self.dtype_b)
        if form.a_type == "f8f6f4" and self.in_type.bits == 8:
            return 16
        return self.k_per_lane

    @property
    def operand_regs(self) -> int:
        return self.k_per_lane // self.in_type.per_dword

    @property
    def acc_regs(self) -> int:
        return self.mfma[0] * self.mfma[1] // 64

    @property
    def pad(self) -> int:
        # default 8 f16 (16 bytes): keeps every LDS row 16-byte aligned for ds_write_b128 /
        # ds_read_b128 and shifts consecutive rows by 4 banks (cdna-facts section 7, padding).
        # MX operands are read with ds_read_b128: 16 bytes of padding.
        if self.lds_pad is not None:
            return self.lds_pad
        return self.in_type.elements(16) if self.mx else 8

    @property
    def lds_row_bytes(self) -> int:
        return self.in_type.nbytes(self.tile[2] + self.pad)

    @property
    def lds_buffer_bytes(self) -> int:
        return (self.tile[0] + self.tile[1]) * self.lds_row_bytes

    @property
    def lds_bytes(self) -> int:
        return (self.prefetch + 1) * self.lds_buffer_bytes

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.m // self.tile[0]), -(-self.n // self.tile[1]), 1)

    @property
    def swizzle_geometry(self) -> tuple[int, int, int] | None:
        """(unit bytes, units per row, rows per bank line) of the LDS XOR swizzle, None without
        it (``asmgen.kinds.gemm.layout.LdsSwizzle``): a unit is one MFMA operand read."""
        if not self.lds_swizzle:
            return None
        unit, row = self.in_type.nbytes(self.k_per_lane), self.in_type.nbytes(self.tile[2])
        return unit, row // unit, max(1, self.target.bank_line_bytes // row)

    @property
    def k_tail(self) -> bool:
        """Whether a runtime K may end inside a K-tile, so K-contiguous loads are masked per tile:
        not when the contract says K is a multiple of DepthU x staging (``k_multiple``; with
        staging 2 the loop computes tiles in pairs), nor when the sizes are baked and K is one."""
        du = self.tile[2]
        span = du * self.staging      # the loop computes whole groups of ``staging`` tiles
        return not (self.k_multiple % span == 0 or (self.bake_sizes and self.k % span == 0))

    @property
    def k_iters(self) -> int:
        return -(-self.k // self.tile[2])

    @property
    def name(self) -> str:
        mt0, mt1, du = self.tile
        act = "" if self.activation == "none" else f"_{self.activation}"
        bias = "_bias" if self.bias else ""
        dt = self.dtype if self.dtype_b is None else f"{self.dtype}x{self.dtype_b}"
        return (f"gemm_{self.layout}_{dt}_{self.out_dtype}_{self.arch}_{mt0}x{mt1}x{du}_"
                f"w{self.waves[0]}x{self.waves[1]}_mfma{'x'.join(map(str, self.mfma))}_"
                f"p{self.prefetch}{'' if self.staging == 1 else f's{self.staging}'}_"
                f"va{self.vec_a}_vb{self.vec_b}{bias}{act}"
                f"{'_dma' if self.direct_to_lds else ''}"
                f"{f'_nt{self.nontemporal}' if self.nontemporal else ''}"
                f"{self._baked_suffix()}"
                f"{f'_km{self.k_multiple}' if self.k_multiple > 1 else ''}"
                f"{'_swz' if self.lds_swizzle else ''}"
                f"{f'_fb{self.frag_buffers}' if self.frag_buffers else ''}")

    def _baked_suffix(self) -> str:
        """Baked sizes are code: the name carries them (and leading dimensions that are not the
        packed ones), so two baked kernels of different sizes never share a name."""
        if not self.bake_sizes:
            return ""
        ta, tb = self.layout[0] == "T", self.layout[1] == "T"
        packed = {"lda": self.m if ta else self.k, "ldb": self.k if tb else self.n, "ldc": self.n}
        lds = "".join(f"_{n}{getattr(self, n)}" for n in ("lda", "ldb", "ldc")
                      if getattr(self, n) != packed[n])
        return f"_baked{self.m}x{self.n}x{self.k}{lds}"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("target", None)
        d["tile"], d["waves"], d["mfma"] = list(self.tile), list(self.waves), list(self.mfma)
        return d

    # -- checks -------------------------------------------------------------------------------
    def _check_pipeline(self) -> None:
        """The loop shape: arrangement, and the fragment register sets of the default one (each
        a ConfigError naming the value)."""
        if self.arrangement not in ARRANGEMENTS:
            raise ConfigError(f"GEMM loop arrangement {self.arrangement!r} is not one of "
                              f"{ARRANGEMENTS}")
        if self.arrangement != "default":
            if self.prefetch != 1:
                raise ConfigError(f"the split GEMM loop ({self.arrangement}) keeps 2 LDS buffers: "
                                  f"prefetch must be 1, got {self.prefetch}")
            if self.staging != 1:
                raise ConfigError(f"the split GEMM loop ({self.arrangement}) stages one K-tile in "
                                  f"VGPRs: staging must be 1, got {self.staging}")
        fb = self.frag_buffers
        if not isinstance(fb, int) or isinstance(fb, bool) or not 0 <= fb <= 8:
            raise ConfigError(f"frag_buffers={fb!r} is not 0 (one register set per K-step) or "
                              f"1..8")
        if fb and self.arrangement != "default":
            raise ConfigError(f"frag_buffers={fb} applies to the default loop arrangement; "
                              f"{self.arrangement!r} carries one operand set across iterations")

    def _default_mfma(self) -> tuple[int, int, int]:
        """The arch's first single-block form for the dtype (pair). gfx950's f8f6f4 forms (the only ones
        of the MX types) do twice the fp8 MACs per pass of the fp8/bf8 ones (cdna-facts 2.1), so
        fp8/bf8 take them too when DepthU is a multiple of their K (64 or 128), unscaled with the
        formats in cbsz/blgp; the modeled 8192^3 fp8 GEMM runs 1.58x faster (issue 15 notes)."""
        tile_k = _triple(self.tile, "tile", 3)[2]
        forms = [f for f in self.target.mfmas(self.dtype, self.dtype_b) if f.blocks == 1]
        wide = [f for f in forms if "f8f6f4" in f.name and tile_k % f.k == 0]
        if self.mx or wide:
            return (wide or [f for f in forms if "f8f6f4" in f.name])[0].shape
        return next(f.shape for f in forms if "f8f6f4" not in f.name)

    def _check_mx(self) -> None:
        """MX types: K a multiple of the 32-element scale block (OCP MX v1.0 defines a block as
        exactly k = 32 elements with one shared scale; a partial last block is not an MX block,
        and ``scale_a``/``scale_b`` are [rows, K/32]: callers zero-pad K, which adds exactly 0).
        K may end inside a K-tile: the data loads past K read 0 (``k_tail``) and so do the
        scale loads (kinds.gemm.mxscale), so a scale byte of the next row (possibly the NaN
        0xFF) never meets the tail. Unset ``k_multiple`` with K a multiple of DepthU x staging
        keeps that promise in the contract (no tail masks: the fast loop)."""
        st = object.__setattr__
        if self.k % SCALE_BLOCK:
            raise ConfigError(f"{self.dtype}: K={self.k} must be a multiple of the {SCALE_BLOCK}-"
                              f"element scale block (OCP MX v1.0; zero-pad K)")
        span = self.tile[2] * self.staging
        if self.k_multiple == 1 and self.k % span == 0:
            st(self, "k_multiple", span)
        st(self, "k_multiple", max(self.k_multiple, SCALE_BLOCK))

    def _check_extents(self) -> None:
        """Offsets are 32-bit buffer voffsets with OOB_OFFSET = 2**31 as the "masked" value, and
        row * ld products use 24-bit multiplies: every buffer must stay below 2 GiB and every
        leading dimension below 2**24 (cdna-facts section 5)."""
        ta, tb = self.layout[0] == "T", self.layout[1] == "T"
        ebytes = self.in_type.size      # Fraction: fp4 is half a byte
        for name, ld, rows, nbytes in (("A", self.lda, self.k if ta else self.m, ebytes),
                                       ("B", self.ldb, self.n if tb else self.k, ebytes),
                                       ("C", self.ldc, self.m, self.out_type.bytes)):
            if ld >= (1 << 24):
                raise ConfigError(f"leading dimension of {name} = {ld} exceeds 2**24")
            if rows * ld * nbytes >= (1 << 31):
                raise ConfigError(f"{name} spans {rows * ld * nbytes} bytes, above the 2 GiB a "
                                  f"32-bit buffer offset with an out-of-range marker can address")

    def _check_tile(self) -> None:
        mt0, mt1, du = self.tile
        wm, wn = self.waves
        mm, mn, mk = self.mfma
        for name, val in (("tile M", mt0), ("tile N", mt1), ("tile K (DepthU)", du),
                          ("waves M", wm), ("waves N", wn)):
            if not _pow2(val):
                raise ConfigError(f"{name} = {val} must be a power of two")
        max_waves = self.target.max_waves_per_workgroup
        if wm * wn > max_waves:
            raise ConfigError(f"{wm}x{wn} = {wm * wn} waves exceed {max_waves} per workgroup")
        if mt0 % (wm * mm):
            raise ConfigError(f"tile M {mt0} is not divisible by waves M {wm} x MFMA M {mm}")
        if mt1 % (wn * mn):
            raise ConfigError(f"tile N {mt1} is not divisible by waves N {wn} x MFMA N {mn}")
        if du % mk:
            raise ConfigError(f"tile K (DepthU) {du} is not divisible by MFMA K {mk}")
        if self.lds_pad is not None and (self.lds_pad < 0 or self.lds_pad % self.k_per_lane):
            raise ConfigError(f"lds_pad {self.lds_pad} must be a non-negative multiple of "
                              f"{self.k_per_lane} elements (keeps ds_read operands aligned)")

    def _check_swizzle(self) -> None:
        """The XOR pattern must repeat every MFMA block (and so every wave tile), so one read
        address per K-step serves all blocks with instruction offsets."""
        sw = self.swizzle_geometry
        if sw is None:
            return
        _, units, rep = sw
        for what, mf in (("M", self.mfma[0]), ("N", self.mfma[1])):
            if mf % rep or (mf // rep) % units:
                raise ConfigError(f"lds_swizzle: MFMA {what} = {mf} rows is not a multiple of "
                                  f"{rep * units} (rows per bank line {rep} x units per row "
                                  f"{units}) for tile K {self.tile[2]} on {self.arch}; use a "
                                  f"larger DepthU or padding")

    def dma(self, operand: str) -> bool:
        """Whether the operand's global reads go straight to LDS (LDS-DMA through M0)."""
        return self.direct_to_lds and self.k_contig(operand)

    def _resolve_direct_to_lds(self) -> None:
        """LDS-DMA writes 4 bytes per lane (16 on gfx950 with dwordx4) at M0 + lane * size
        (cdna-facts section 6), so the LDS rows must be unpadded (a wave's 64 lanes fill
        contiguous bytes) and the K vector is the DMA width."""
        st = object.__setattr__
        if self.lds_pad not in (None, 0):
            raise ConfigError(f"direct_to_lds needs unpadded LDS rows, got lds_pad={self.lds_pad}")
        st(self, "lds_pad", 0)
        if not (self.k_contig("a") or self.k_contig("b")):
            raise ConfigError(f"direct_to_lds: layout {self.layout} has no K-contiguous operand")
        for name, op, ld in (("vec_a", "a", self.lda), ("vec_b", "b", self.ldb)):
            if not self.k_contig(op):
                continue
            widths = tuple(self.in_type.elements(b) for b in self.target.lds_dma_bytes)
            if self.lds_swizzle:     # a DMA vector stays inside one swizzle unit
                widths = tuple(w for w in widths if w <= self.k_per_lane)
            ok = [w for w in widths if self.k % w == 0 and ld % w == 0]
            want = getattr(self, name)
            if want is not None and want not in ok:
                raise ConfigError(f"direct_to_lds: {name}={want} is not a DMA width allowed here "
                                  f"(K={self.k}, ld={ld}, {self.arch}: {ok or 'none'})")
            if not ok:
                raise ConfigError(f"direct_to_lds needs K={self.k} and the leading dimension {ld} "
                                  f"even (LDS-DMA moves whole dwords)")
            st(self, name, want or ok[0])

    def _check_vectors(self) -> None:
        """Vector widths of global loads (elements along the contiguous dimension). K-contiguous
        operands (A in N, B in T) load 8/4/2/1 K elements and write them to one LDS row with one
        ds_write. MN-contiguous ones (A in T, B in N) load ``MN_WIDTHS`` MN elements from each of
        the consecutive K rows one dword packs (2 for 16-bit types, 4 for 8-bit ones) and
        transpose them into dwords of K-neighbours (LDS keeps K contiguous), one ds_write_b32 per
        MN row, so each LDS dword has one writing wave. MX operands are K-contiguous only."""
        st = object.__setattr__
        mt0, mt1, du = self.tile
        for name, op, ld, mt, mn_size in (("vec_a", "a", self.lda, mt0, self.m),
                                          ("vec_b", "b", self.ldb, mt1, self.n)):
            val = getattr(self, name)
            k_contig = self.k_contig(op)
            contig = self.k if k_contig else mn_size
            per_vec = 1 if k_contig else self.in_type.per_dword   # loads along K per vector
            if not k_contig and self.in_type.bits <= 8 and du // per_vec > self.threads:
                # the K-quad-first vector order (layout.GlobalReadMap.k_fast; fp4: K octets)
                # keeps per-load deltas thread-independent only while a thread's vectors share
                # their K quad
                group = "quads" if self.in_type.bits == 8 else "octets"
                raise ConfigError(f"layout {self.layout}: tile K (DepthU) {du} has {du // per_vec} "
                                  f"K {group} of the {op.upper()} operand, above the "
                                  f"{self.threads} threads of the workgroup")
            widths = (tuple(w for w in (self.in_type.elements(b) for b in (16, 8, 4, 2, 1)) if w)
                      if k_contig else MN_WIDTHS[self.in_type.bits])
            sw = self.swizzle_geometry
            if sw is not None:
                # a vector must stay inside one swizzle unit (K-contiguous), and both MN rows of a
                # 2-wide MN vector must share their XOR (rows per bank line >= 2)
                widths = tuple(w for w in widths if self.in_type.nbytes(w) <= sw[0]) if k_contig else \
                    tuple(w for w in widths if w <= sw[2])
            # fp4 MN-contiguous rows are packed pairs along MN: a vector may run past M (N)
            # into the row's padding up to ld (its elements only reach C rows/columns that are
            # not stored), so only ld must be a multiple of the vector
            if not k_contig and self.in_type.bits < 8:
                contig = ld
            if val is None:
                val = next((w for w in widths if contig % w == 0 and ld % w == 0
                            and (mt * du) % (w * per_vec * self.threads) == 0), 0)
                if val == 0:
                    raise ConfigError(f"tile {mt}x{du} has {mt * du} elements, not a multiple of "
                                      f"{self.threads} threads x {per_vec}")
                st(self, name, val)
                continue
            if val not in widths:
                kind = "K" if k_contig else "MN"
                why = " with lds_swizzle" if sw is not None else ""
                raise ConfigError(f"{name}={val} is not one of {widths} (the {kind}-contiguous "
                                  f"operand of layout {self.layout}{why})")
            if contig % val or ld % val:
                dim = "K" if k_contig else ("M" if op == "a" else "N")
                raise ConfigError(f"{name}={val} does not divide {dim}={contig} and the leading "
                                  f"dimension {ld}: vector loads would straddle the matrix edge")
            if (mt * du) % (val * per_vec * self.threads) or du % (val if k_contig else per_vec):
                raise ConfigError(f"{name}={val}: tile {mt}x{du} does not split into "
                                  f"{self.threads} threads x vectors of {val * per_vec}")

    def _check_resources(self) -> None:
        check_vmcnt(self)
        lim = self.target.lds_limit
        if self.lds_bytes > lim:
            raise ConfigError(f"LDS use {self.lds_bytes} bytes ({self.prefetch + 1} buffers x "
                              f"{self.lds_buffer_bytes}) exceeds the {lim} byte limit of {self.arch}")
        region = max(self.tile[0], self.tile[1]) * self.lds_row_bytes
        t = self.target
        if region - 1 > t.ds_offset_max:
            raise ConfigError(f"an LDS tile of {region} bytes needs DS offsets above "
                              f"{t.ds_offset_max}")
        bm, bn = self.blocks
        agprs = bm * bn * self.acc_regs
        if agprs > t.agpr_max:
            raise ConfigError(f"accumulators need {agprs} AGPRs per lane, above the {t.agpr_max} "
                              f"AGPR limit (tile {self.tile}, waves {self.waves})")
        vgprs = self.vgpr_estimate()
        if vgprs > t.vgpr_max:
            raise ConfigError(f"the kernel needs about {vgprs} VGPRs per lane, above the "
                              f"{t.vgpr_max} ArchVGPR limit")
        if agprs + vgprs > t.regs_per_lane:
            raise ConfigError(f"{agprs} AGPRs + ~{vgprs} VGPRs exceed the {t.regs_per_lane} "
                              f"registers per lane")

    def k_contig(self, operand: str) -> bool:
        """Whether K is the contiguous dimension of the operand in memory."""
        return (self.layout[0] == "N") if operand == "a" else (self.layout[1] == "T")

    def kvec(self, operand: str) -> int:
        """K elements one thread writes to LDS per vector: the load vector for K-contiguous
        operands, a pair of single-element loads for MN-contiguous ones."""
        vec = self.vec_a if operand == "a" else self.vec_b
        return vec if self.k_contig(operand) else self.in_type.per_dword

    def mn_vec(self, operand: str) -> int:
        """MN rows one vector covers: 1 for K-contiguous operands, the load width otherwise."""
        vec = self.vec_a if operand == "a" else self.vec_b
        return 1 if self.k_contig(operand) else vec

    def loads_per_thread(self, operand: str) -> int:
        """Vectors per thread and K-tile (each is 1 load, or 2 when MN-contiguous)."""
        mt = self.tile[0] if operand == "a" else self.tile[1]
        return mt * self.tile[2] // (self.kvec(operand) * self.mn_vec(operand) * self.threads)

    def vgpr_estimate(self) -> int:
        """A lower bound of live VGPRs in the K loop (``kinds.gemm.budget.vgpr_estimate``)."""
        return vgpr_estimate(self)
