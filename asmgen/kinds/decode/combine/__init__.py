"""The ``decode_combine`` kind: the merge of a split decode kernel's partial O and LSE (its
config and template are ``asmgen.kinds.decode.merge``; the kind is ``kind``)."""
from __future__ import annotations

NAME = "decode_combine"
HELP = "generate the kernel merging a split decode kernel's partial O and LSE"
