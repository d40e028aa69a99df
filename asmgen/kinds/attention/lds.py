"""LDS geometry of the attention kernel, shared by the config (its LDS budget check) and the
tiles that lay the data out: the block sizes, the K region and V^T rows of one buffer.
It imports nothing of this kind, so ``config`` and ``ktile`` / ``vtile`` both read it."""
from __future__ import annotations

BLOCK_Q = 32           # query rows per wave: the N of the 32x32x8 MFMA (cdna-facts section 2.2)
BLOCK_K = 32           # keys per loop iteration: the M of the 32x32x8 MFMA
# V^T rows of BLOCK_K 16-bit keys: the transposed layout of ``vtile`` packs key pairs with
# v_perm_b32 / ds_write_b16, so it is 16-bit by construction (the config admits f16/bf16 only)
ROW_BYTES = 80         # one padded V^T row of the single-buffer layout (``vtile``): 64 + 16 pad
FP8_ROW_BYTES = 48     # the same for 8-bit keys (fp8): 32 + 16 pad
SWZ_ROW_BYTES = 64     # one unpadded, XOR-swizzled V^T row of the multi-buffer layout


def k_region_bytes(head_dim: int, dtype) -> int:
    """The K block of one buffer: BLOCK_K keys x head_dim elements of ``dtype`` (a
    ``asmgen.dtypes.DType``)."""
    return BLOCK_K * dtype.nbytes(head_dim)


def kv_buffer_bytes(head_dim: int, dtype) -> int:
    """One LDS buffer: the K region, then the V^T region (``vtile``: swizzled; 8-bit V keeps
    the padded rows)."""
    if dtype.bits == 8:
        return k_region_bytes(head_dim, dtype) + head_dim * FP8_ROW_BYTES
    return k_region_bytes(head_dim, dtype) + head_dim * SWZ_ROW_BYTES


def row_bytes(dtype=None) -> int:
    """One padded V^T row of the single-buffer layout for ``dtype`` (None: 16-bit)."""
    return FP8_ROW_BYTES if dtype is not None and dtype.bits == 8 else ROW_BYTES


def v_bytes(head_dim: int, dtype=None) -> int:
    """The single-buffer layout: V^T only (padded rows)."""
    return head_dim * row_bytes(dtype)
