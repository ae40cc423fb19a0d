"""Plain shell scripts written for no framework: read from their own text (read.py), run
with their options and positionals as the script reads them (argv.py)."""
