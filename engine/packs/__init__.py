"""Loading, validating and explaining rule packs (YAML in, a compiled RulePack out)."""
