"""Every script dialect, in the order they are asked "is this file yours?".

Adding a dialect means one new module with `claims` and `declare`, and one line here.
"""

from __future__ import annotations

from toolkiln.discover import annotations as annotations_dialect
from toolkiln.discover import help_json, kit, node_cli, python_module, sidecar
from toolkiln.discover.base import Dialect

# A sidecar is the most explicit declaration there is, and reading it is free and certain,
# so it goes first. Reading a header is free and certain too; probing `--help` runs the
# file, so it goes last. A Node.js script's commander/yargs/parseArgs declarations are read
# as text, so they come before it.
ALL_DIALECTS: tuple[Dialect, ...] = (sidecar, annotations_dialect, kit, python_module, node_cli, help_json)
