"""Where the python dialect hands a docopt or Python Fire script to its reader: only a
script whose command line can be read without running it is claimed (else the readers
after it, help-json's `--help` and the fallback, have it as before)."""

from __future__ import annotations

import ast

from toolkiln.conventions.base import Declaration


def readable_docopt_or_fire(text: str, frameworks: set[str]) -> bool:
    """Whether the script's docopt usage text, or what it hands `fire.Fire`, can be read."""
    from toolkiln.conventions.python.read_fire import fire_call
    from toolkiln.conventions.python_cli.docopt_call import usage_text

    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return ("docopt" in frameworks and usage_text(module) is not None) or (
        "fire" in frameworks and fire_call(module) is not None
    )


def read_docopt_or_fire(module: ast.Module, framework: str, path: str) -> list[Declaration]:
    from toolkiln.conventions.python.read_fire import read_fire
    from toolkiln.conventions.python_cli.read_docopt import read_docopt

    return read_docopt(module, path) if framework == "docopt" else read_fire(module, path)
