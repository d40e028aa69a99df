"""The decode kinds' tag vocabulary (``asmgen.ir.tags``): the attention kind's tags (the decode
loop body is the attention body, so the attention recipes order it) plus ``DecodeTag`` for what
only decode has (the block-table reads and page arithmetic, the split combine, the fp8 KV dequant).

A leaf declaration (imports only the tag modules)."""
from __future__ import annotations

from ...ir.tags import TagEnum, TagVocabulary
from ..attention.tags import AttnTag
from ..common.tags import CommonTag


class DecodeTag(TagEnum):
    PAGE = "page"                 # paged KV: page numbers to per-lane offsets
    GR_BT = "gr_bt"               # the block table's scalar buffer loads
    COMBINE = "combine"           # the split combine's merge arithmetic
    GR_LSE = "gr_lse"             # the combine's partial LSE loads
    GR_O = "gr_o"                 # the combine's partial O loads
    DEQUANT = "dequant"           # fp8 KV bytes widened to the compute dtype
    KSCALE = "kscale"             # per-token k_scale times the scores
    VSCALE = "vscale"             # per-token v_scale times P (and its copy past the prefetch)


DECODE_TAGS = TagVocabulary("decode", CommonTag, AttnTag, DecodeTag)
