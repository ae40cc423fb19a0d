"""Every script dialect, in the order they are asked "is this file yours?".

Adding a dialect means one new module with `claims` and `declare`, and one line here.
"""

from __future__ import annotations

from toolkiln.discover import annotations as annotations_dialect
from toolkiln.discover import help_json, js_function, kit, python_function, python_module
from toolkiln.discover.base import Dialect

# Reading a header is free and certain; probing `--help` runs the file, so it goes last.
ALL_DIALECTS: tuple[Dialect, ...] = (
    annotations_dialect,
    kit,
    python_module,
    python_function,
    js_function,
    help_json,
)
