"""Script Kit scripts (`@johnlindquist/kit`): `arg()` prompts read as parameters."""
