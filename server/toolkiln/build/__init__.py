"""Stage 2: the enabled per-item configs merged into one compiled `config/tools.json`."""
