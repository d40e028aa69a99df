"""The attention kind's tag vocabulary (``asmgen.ir.tags``): ``AttnTag`` and ``ATTN_TAGS`` (with
``CoreTag`` and ``CommonTag``).

A leaf declaration (imports only the tag modules), so recipes may import it (tests/layers)."""
from __future__ import annotations

from ...ir.tags import TagEnum, TagVocabulary
from ..common.tags import CommonTag


class AttnTag(TagEnum):
    GR_Q = "gr_q"                 # Q loads (prologue)
    GR_K = "gr_k"                 # K global loads / LDS-DMA
    GR_K_ADDR = "gr_k_addr"       # their M0 / offset arithmetic
    GR_V = "gr_v"                 # V global loads
    LW_K = "lw_k"                 # K's LDS-DMA write side
    LW_V = "lw_v"                 # V^T LDS writes
    LW_V_ADDR = "lw_v_addr"
    LR_K = "lr_k"                 # K LDS reads
    LR_K_ADDR = "lr_k_addr"
    LR_V = "lr_v"                 # V^T LDS reads
    LR_V_ADDR = "lr_v_addr"
    PACK_V = "pack_v"             # V transposes before the ds_writes
    MFMA_QK = "mfma_qk"           # S = Q K^T (also mfma)
    MFMA_PV = "mfma_pv"           # O += P V (also mfma)
    SOFTMAX = "softmax"           # the online softmax, with its parts:
    MASK = "mask"
    ROWMAX = "rowmax"
    EXP = "exp"
    ROWSUM = "rowsum"
    RESCALE = "rescale"
    PACK = "pack"                 # P to the MFMA input type
    XLANE = "xlane"               # cross-lane reductions (permlane / ds_bpermute)
    KV_ADV = "kv_adv"             # the K/V block advance (SALU)
    KV_ROT = "kv_rot"             # the LDS buffer rotation of the multi-wave loop
    SETPRIO_QK_LO = "setprio_qk_lo"   # the drop after the QK cluster (multi-wave loop)
    SETPRIO_PV_HI = "setprio_pv_hi"   # the raise before the PV cluster
    INIT = "init"                 # softmax state initialisation
    PHASE_V = "phase_v"           # ping-pong: every node of the softmax / memory phase
    BARRIER_MID = "barrier_mid"   # ping-pong: the barrier after the MFMA phase
    BARRIER_END = "barrier_end"   # ping-pong: the barrier after the softmax / memory phase


ATTN_TAGS = TagVocabulary("attention", CommonTag, AttnTag)
