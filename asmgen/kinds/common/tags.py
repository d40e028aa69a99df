"""Tags the GEMM and attention kinds share (``asmgen.ir.tags``): the MFMA, ``s_setprio`` and store
nodes that the shared recipe pieces (``schedules.common.setprio_groups``) pin, and the kernarg
loads. A kind includes ``CommonTag`` in its ``TagVocabulary`` when its templates use them.

A leaf declaration (imports only ``asmgen.ir.tags``), so recipes, below the kinds in the layers,
may import it (tests/layers: ``asmgen.kinds.*.tags`` modules sit with the IR)."""
from __future__ import annotations

from ...ir.tags import TagEnum


class CommonTag(TagEnum):
    MFMA = "mfma"                 # every MFMA
    SETPRIO = "setprio"           # every s_setprio
    SETPRIO_HI = "setprio_hi"     # the raise before the MFMA cluster
    SETPRIO_LO = "setprio_lo"     # the drop after it
    STORE = "store"               # epilogue global stores
    KARG = "karg"                 # s_load of kernel arguments
    EPI = "epi"                   # epilogue arithmetic (GEMM: alpha/beta/bias/activation;
                                  # attention: the normalisation and LSE)
