"""The serving-attention kinds: decode over a dense or paged KV cache (``decode``: config,
template with ``kvload`` / ``paged``, contract, reference, splits, profile, fuzz, CLI, kind) and
the kernel combining its per-split partials (``decode_combine``: ``merge`` and the ``combine``
package)."""
from __future__ import annotations

# the registry lists the kind by these without importing it (``registry.listing`` / ``modes``)
NAME = "decode"
HELP = "generate a decode-attention kernel (flash decoding, dense or paged KV cache)"
MODE_OF = ("attention", "decode")      # also asmgen attention --mode decode
