"""The serving-attention kinds: decode over a dense or paged KV cache (``decode``, split across
workgroups, flash decoding) and the kernel combining its per-split partials
(``decode_combine``)."""
