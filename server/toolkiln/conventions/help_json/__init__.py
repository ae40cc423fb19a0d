"""Scripts that answer `--help` with toolkiln's JSON."""
