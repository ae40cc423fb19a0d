"""Annotated scripts (seeds/003): `# @describe` / `# @param` comment headers."""
