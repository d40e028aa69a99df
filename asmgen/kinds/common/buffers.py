"""Buffer-resource facts every template uses: the raw-buffer SRD word 3 and the out-of-range
offset that masks a load (returns 0) or a store (dropped), and ``log2`` of a power of two."""
from __future__ import annotations

# Buffer resource word 3 for raw buffers on gfx9 (data_format 32-bit, everything else 0):
# cdna-facts section 5 (CK ``CK_BUFFER_RESOURCE_3RD_DWORD``, Tensile ``Srd127_96``).
SRD_DWORD3 = 0x00020000
# An offset no buffer reaches: out-of-range loads return 0, stores are dropped (section 5).
OOB_OFFSET = 0x80000000


def log2(x: int) -> int:
    """log2 of a power of two."""
    return x.bit_length() - 1
