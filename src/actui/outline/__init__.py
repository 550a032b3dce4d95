"""The outline: one snapshot as a neutral, ref-addressed tree; its text, search and diffs."""
