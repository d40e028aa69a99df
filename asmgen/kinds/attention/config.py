"""The frozen, validated ``AttentionConfig`` of one flash-attention forward kernel.

Every limit raises ``ConfigError`` naming the bad value and the limit before any instruction is
built. The kernel (``asmgen.kinds.attention.template``) gives each workgroup ``waves`` waves (1, 2, 4)
of ``BLOCK_Q`` = 32 query rows each (8: the ping-pong loop, ``kinds.attention.pingpong``), of one (batch, head) (``rows_per_wg`` = 32 waves); it walks
the keys in blocks of ``block_k`` = 32. With ``kv_buffers`` = 1 (only for one wave) K goes
straight to operand registers and V through one LDS buffer; with 2 or 3 the workgroup loads
each K/V block once into one of ``kv_buffers`` LDS buffers (``kinds.attention.pipe``).
fp8 (``FP8_DTYPES``, the arch's own: FNUZ on gfx942, OCP on gfx950): Q, K, V are fp8 with
per-tensor f32 ``q_scale`` / ``k_scale`` / ``v_scale`` (kernel arguments), both matmuls run on
the 32x32x16 fp8 MFMA, P is quantised to fp8 as P x ``max_finite`` and O is ``out_dtype``
(bf16 or f32; ``kinds.attention.softmax``).
Sizes are kernel arguments too: the compiled kernel is correct for any runtime ``seqlen_q`` /
``seqlen_k`` >= 1 within the limits below (the grid in the contract is the one for the config's
``seqlen_q``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ...dtypes import DTYPES, DType, dtype_of
from ...errors import ConfigError
from ...target import ARCHES, DEFAULT_ARCH, IN_DTYPES, target_of
from ..common.arch import ArchTyped
from .lds import BLOCK_K, BLOCK_Q, kv_buffer_bytes, v_bytes

HEAD_DIMS = (64, 128)                       # every attention kind (decode, extend import it)
PREFILL_HEAD_DIMS = HEAD_DIMS + (256,)       # this kind's (head_dim 256: below)
# head_dim 256 (f16/bf16 only): Q's MFMA B operands (64 per lane) live in AccVGPRs, and O^T
# (128 f32 per lane) too unless the ArchVGPRs hold it (``o_agpr_blocks``)
AGPR_HEAD_DIM = 256
# O^T tuples in AGPRs at head_dim 256 per (waves, K/V shared through LDS); default all 8.
# Four waves: O^T in VGPRs (244-256 of them), since every AGPR tuple costs the rescale 40
# v_accvgpr_read / write per key block. ``asmgen profile``, B16 H16 S8192 bf16 non-causal,
# seqlen_k_multiple 32, TFLOP/s at the model's clock: gfx942 prio_interleave 756 (0 AGPR tuples)
# > 730 (1) > 660 (4) > 586 (8, Q in VGPRs); gfx950 basic 1110 > 1052 > 909 > 770
O_AGPR_BLOCKS = {(4, True): 0}
# fp8 Q/K/V: each arch takes its own E4M3 (asmgen.dtypes: FNUZ on gfx942, OCP on gfx950)
FP8_DTYPES = ("fp8_e4m3fnuz", "fp8_e4m3")
FP8_OUT = ("bf16", "f32")            # O of an fp8 kernel (LSE is f32 always)
FP8_MFMA_K = 16                      # v_mfma_f32_32x32x16_fp8_fp8 (both arches)
# seqlen * head_dim * 2 bytes must fit the 32-bit num_records of a buffer resource
# (cdna-facts section 5); 2**20 keeps every SALU offset product below 2**31 for D <= 256
# (2**20 rows x 512 bytes = 2**29).
SEQ_MAX = 1 << 20
# The GQA head division runs in f32 (floor((h * kv_heads + 0.5) / heads)); it is exact while
# h * kv_heads < 2**21 (f32 relative error 2**-22 against a distance 0.5 / heads to an integer).
HEADS_MAX = 1024
BATCH_MAX = 1 << 16


def mfma_ks(arch: str, dtype: str = "f16") -> tuple[int, ...]:
    """K of the arch's 32x32xK MFMAs for ``dtype``, native first (the Target's table: on CDNA4 the
    x8 forms still exist at half rate, the x16 ones are native, cdna-facts section 2.1)."""
    return tuple(k for m, n, k in target_of(arch).mfma_shapes(dtype) if (m, n) == (32, 32))


def __getattr__(name: str):
    """``MFMA_K``: K of the 32x32xK f16/bf16 MFMA per arch, native first (built on first use, so
    importing this module loads no isa table)."""
    if name == "MFMA_K":
        value = globals()[name] = {a: mfma_ks(a) for a in ARCHES}
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
WAVES = (1, 2, 4, 8)
KV_BUFFERS = (1, 2, 3)
PINGPONG_WAVES = 8     # the ping-pong loop (``kinds.attention.pingpong``): two groups of 4 waves
PINGPONG_BUFFERS = 3   # its K ring (the V ring takes the V^T regions of the first two)
# registers (ArchVGPRs + AccVGPRs) of each of its two waves per SIMD: the unified 512 per lane
# (cdna-facts section 1, occupancy = floor(512 / total))
PINGPONG_REGS = 256


def softmax_scale(kind: str, scale, head_dim: int) -> float:
    """The softmax scale a config keeps: ``scale`` (None: 1/sqrt(head_dim)) as a float in
    (0, 1e4), else a ConfigError naming the kind (prefill and decode share this rule)."""
    if scale is None:
        scale = 1.0 / head_dim ** 0.5
    if not isinstance(scale, (int, float)) or not 0.0 < float(scale) < 1e4:
        raise ConfigError(f"{kind} scale={scale!r} is not in (0, 1e4)")
    return float(scale)


def _int(name: str, value, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"attention {name}={value!r} is outside {lo}..{hi}")
    return value


@dataclass(frozen=True, slots=True)
class AttentionConfig(ArchTyped):
    """One attention forward kernel: O = softmax(Q K^T * scale [+ causal mask]) V, plus LSE."""

    batch: int = 1
    heads: int = 1
    kv_heads: int | None = None      # default: heads (MHA); 1 = MQA; divides heads (GQA)
    seqlen_q: int = 128
    seqlen_k: int = 128
    head_dim: int = 64
    dtype: str = "f16"
    causal: bool = False
    arch: str = DEFAULT_ARCH
    scale: float | None = None       # default 1 / sqrt(head_dim)
    mfma_k: int | None = None        # 8 (32x32x8) or 16 (32x32x16, gfx950); default: the arch's
    prefetch: int = 1                # key blocks loaded ahead (0: load each block in its iteration)
    waves: int = 1                   # waves per workgroup, 32 query rows each (1, 2, 4)
    kv_buffers: int | None = None    # LDS K/V buffers: 1 (one wave, K in registers) or 2, 3;
    #                                  default 1 for one wave, else 2
    seqlen_k_multiple: int = 1       # runtime seqlen_k is a multiple of this (kernel contract)
    varlen: bool = False             # packed sequences by cu_seqlens_q / cu_seqlens_k (template);
    #                                  seqlen_q / seqlen_k are then max_seqlen_q / max_seqlen_k
    out_dtype: str | None = None     # O's type: dtype for f16/bf16; fp8: bf16 (default) or f32

    def __post_init__(self) -> None:
        st = object.__setattr__
        target_of(self.arch)      # ConfigError naming the value and the known arches
        if self.dtype not in IN_DTYPES + FP8_DTYPES:
            raise ConfigError(f"attention dtype={self.dtype!r} is not one of "
                              f"{IN_DTYPES + FP8_DTYPES}")
        if self.dtype in FP8_DTYPES and self.arch not in DTYPES[self.dtype].arches:
            have = ", ".join(d for d in IN_DTYPES + FP8_DTYPES if self.arch in DTYPES[d].arches)
            raise ConfigError(f"attention dtype={self.dtype!r} is not available on {self.arch} "
                              f"(its attention dtypes: {have})")
        fp8 = self.dtype in FP8_DTYPES
        if self.out_dtype is None:
            st(self, "out_dtype", "bf16" if fp8 else self.dtype)
        outs = FP8_OUT if fp8 else (self.dtype,)
        if self.out_dtype not in outs:
            raise ConfigError(f"attention out_dtype={self.out_dtype!r} is not one of {outs} for "
                              f"dtype={self.dtype!r}")
        if self.head_dim not in PREFILL_HEAD_DIMS:
            raise ConfigError(f"attention head_dim={self.head_dim!r} is not one of "
                              f"{PREFILL_HEAD_DIMS}")
        if self.head_dim == AGPR_HEAD_DIM and fp8:
            raise ConfigError(f"attention head_dim=256 with dtype={self.dtype!r} is not built "
                              f"(head_dim 256 takes f16/bf16)")
        if not isinstance(self.causal, bool):
            raise ConfigError(f"attention causal={self.causal!r} is not a bool")
        _int("batch", self.batch, 1, BATCH_MAX)
        _int("heads", self.heads, 1, HEADS_MAX)
        if self.kv_heads is None:
            st(self, "kv_heads", self.heads)
        _int("kv_heads", self.kv_heads, 1, self.heads)
        if self.heads % self.kv_heads:
            raise ConfigError(f"attention kv_heads={self.kv_heads} does not divide "
                              f"heads={self.heads}")
        _int("seqlen_q", self.seqlen_q, 1, SEQ_MAX)
        _int("seqlen_k", self.seqlen_k, 1, SEQ_MAX)
        ks = (FP8_MFMA_K,) if fp8 else mfma_ks(self.arch)
        if self.mfma_k is None:
            st(self, "mfma_k", ks[0])
        if self.mfma_k not in ks:
            raise ConfigError(f"attention mfma_k={self.mfma_k!r} is not available on {self.arch} "
                              f"(32x32xK with K in {ks})")
        _int("prefetch", self.prefetch, 0, 1)
        if self.waves not in WAVES:
            raise ConfigError(f"attention waves={self.waves!r} is not one of {WAVES}")
        if self.kv_buffers is None:
            st(self, "kv_buffers", 1 if self.waves == 1 else
               PINGPONG_BUFFERS if self.pingpong else 2)
        if self.kv_buffers not in KV_BUFFERS:
            raise ConfigError(f"attention kv_buffers={self.kv_buffers!r} is not one of {KV_BUFFERS}")
        if self.kv_buffers == 1 and self.waves > 1:
            raise ConfigError(f"attention kv_buffers=1 needs waves=1 (got waves={self.waves}): "
                              f"shared K/V blocks need >= 2 LDS buffers")
        if self.pingpong:    # the ping-pong loop's limits (``kinds.attention.pingpong``)
            if self.kv_buffers != PINGPONG_BUFFERS:
                raise ConfigError(f"attention waves={PINGPONG_WAVES} (the ping-pong loop) needs "
                                  f"kv_buffers={PINGPONG_BUFFERS}, got kv_buffers="
                                  f"{self.kv_buffers}")
            if self.head_dim != 128:
                o_regs = BLOCK_Q * self.head_dim // self.target.wave_size   # f32 O^T per lane
                why = ("a K/V block does not split into 8 equal shares" if self.head_dim < 128
                       else f"two waves per SIMD leave each {PINGPONG_REGS} of a lane's 512 "
                            f"registers, and O^T {o_regs} + Q {o_regs * DTYPES[self.dtype].bits // 32} + "
                            f"S^T 16 + the carried K/V operands stay live across the loop")
                raise ConfigError(f"attention waves={PINGPONG_WAVES} (the ping-pong loop) is built "
                                  f"for head_dim=128, got head_dim={self.head_dim}: {why}")
        if self.kv_buffers > 1 and self.prefetch != 1:
            raise ConfigError(f"attention prefetch={self.prefetch} applies to kv_buffers=1 only; "
                              f"with kv_buffers={self.kv_buffers} blocks are loaded "
                              f"kv_buffers - 1 ahead")
        m = self.seqlen_k_multiple
        if (not isinstance(m, int) or isinstance(m, bool) or m < 1 or m & (m - 1)
                or m > SEQ_MAX):
            raise ConfigError(f"attention seqlen_k_multiple={m!r} is not a power of two in "
                              f"1..{SEQ_MAX}")
        if self.seqlen_k % m:
            raise ConfigError(f"attention seqlen_k_multiple={m} does not divide "
                              f"seqlen_k={self.seqlen_k}")
        if not isinstance(self.varlen, bool):
            raise ConfigError(f"attention varlen={self.varlen!r} is not a bool")
        if self.varlen and m != 1:
            raise ConfigError(f"attention seqlen_k_multiple={m} needs varlen=False: a packed "
                              f"sequence's key count is any value >= 0")
        limit = self.target.lds_limit
        if self.lds_bytes > limit:
            raise ConfigError(f"attention LDS {self.lds_bytes} bytes (kv_buffers="
                              f"{self.kv_buffers}, head_dim={self.head_dim}) exceed the {limit} "
                              f"bytes of {self.arch} (cdna-facts section 1)")
        st(self, "scale", softmax_scale("attention", self.scale, self.head_dim))

    @property
    def block_q(self) -> int:
        return BLOCK_Q

    @property
    def block_k(self) -> int:
        return BLOCK_K

    @property
    def out_type(self) -> DType:
        """The element type of O."""
        return dtype_of(self.out_dtype)

    @property
    def fp8(self) -> bool:
        """fp8 Q/K/V: per-tensor scales, P quantised with the max-finite offset."""
        return self.dtype in FP8_DTYPES

    @property
    def k_per_lane(self) -> int:
        """Head-dim elements per lane and k-step of the 32x32xK MFMA: K * 32 rows / 64 lanes
        (cdna-facts section 2.2): 4 for K = 8, 8 for K = 16."""
        return self.mfma_k * BLOCK_Q // self.target.wave_size

    @property
    def rows_per_wg(self) -> int:
        """Query rows of one workgroup (32 per wave)."""
        return BLOCK_Q * self.waves

    @property
    def pingpong(self) -> bool:
        """8 waves: the ping-pong loop (``kinds.attention.pingpong``), two groups of 4 waves
        alternating between an MFMA phase and a softmax / memory phase."""
        return self.waves == PINGPONG_WAVES

    @property
    def threads(self) -> int:
        return 64 * self.waves

    @property
    def lds_bytes(self) -> int:
        """LDS of the kernel (kinds.attention.vtile / ktile layouts, ``lds``)."""
        if self.kv_buffers == 1:
            return v_bytes(self.head_dim, self.in_type)
        return self.kv_buffers * kv_buffer_bytes(self.head_dim, self.in_type)

    @property
    def grid(self) -> tuple[int, int, int]:
        """Workgroups per dimension: (Q-blocks of ``rows_per_wg`` rows, heads, batch), causal
        (heads, batch, Q-blocks) longest first (``kinds.attention.grid``)."""
        from .grid import grid
        return grid(self.causal, self.batch, self.heads, self.seqlen_q, self.rows_per_wg)

    @property
    def mfma(self) -> str:
        """Both matmuls use one 32x32xK shape. With K = 8 the C layout (lane = column,
        registers 4s..4s+3 = rows 8s + 4 (lane / 32) + 0..3) is the B-operand layout of k-step s
        (cdna-facts section 2.2), so P never leaves registers; with K = 16 (gfx950) registers
        8s..8s+7 are one k-step's operand once V^T is read in the same key order."""
        if self.fp8:    # fp8 x fp8 (the arch's encoding; isa operand type "fp8" on both)
            return f"v_mfma_f32_32x32x{self.mfma_k}_fp8_fp8"
        return f"v_mfma_f32_32x32x{self.mfma_k}_{self.dtype}"

    @property
    def name(self) -> str:
        gq = f"_g{self.heads // self.kv_heads}" if self.kv_heads != self.heads else ""
        return (f"attn_fwd_{self.arch}_{self.dtype}_d{self.head_dim}_k{self.mfma_k}"
                f"{'_causal' if self.causal else ''}{gq}{'' if self.prefetch else '_pf0'}"
                f"{f'_w{self.waves}b{self.kv_buffers}' if self.kv_buffers > 1 else ''}"
                f"{'' if self.key_mask else '_nomask'}{'_varlen' if self.varlen else ''}"
                f"{'_of32' if self.fp8 and self.out_dtype == 'f32' else ''}")

    @property
    def o_agpr_blocks(self) -> int:
        """How many of O^T's 32-dim accumulator tuples live in AccVGPRs (the last ones; the
        softmax rescales them through v_accvgpr_read / write, ``softmax``): none below head_dim
        256; at 256 none with four waves sharing K/V (Q is in AGPRs, K/V operands come from LDS
        a block at a time, so O^T fits the 256 ArchVGPRs), all eight otherwise (``O_AGPR_BLOCKS``)."""
        if self.head_dim != AGPR_HEAD_DIM:
            return 0
        return O_AGPR_BLOCKS.get((self.waves, self.kv_buffers > 1), self.head_dim // 32)

    @property
    def key_mask(self) -> bool:
        """Whether scores are masked per element: always when causal (the diagonal blocks), and
        when a key block can end past seqlen_k, i.e. unless ``seqlen_k_multiple`` is a multiple
        of the key block (the contract checks it at launch)."""
        return self.causal or self.seqlen_k_multiple % BLOCK_K != 0

    def to_dict(self) -> dict:
        return asdict(self)
