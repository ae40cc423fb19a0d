"""kit scripts: `// Name:` metadata and a `defineSchema`/`schema` literal."""
