"""Script conventions: one package per way a script declares itself (its reader) and how its arguments
reach it (its argv). See docs/architecture.md.
"""
