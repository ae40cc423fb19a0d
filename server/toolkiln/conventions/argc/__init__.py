"""argc's comment tags (`# @cmd`, `# @option`), run through toolkiln's argc shim."""
