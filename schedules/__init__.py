"""Named schedule recipes: small functions of their parameters, selected by name."""
