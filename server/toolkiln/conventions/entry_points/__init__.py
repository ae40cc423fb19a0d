"""Declared entry points: the commands a project's own metadata names.

    # pyproject.toml                      // package.json
    [project.scripts]                     {"bin": {"greet": "bin/greet.js"}}
    greet = "greet:cli"

A folder holding a `pyproject.toml` that names commands (`[project.scripts]`, PEP 621;
`[tool.poetry.scripts]`), or a `package.json` with `bin`, is one project: each command is
a tool named after it, read statically like any script (the click/typer/argparse/docopt/
fire readers on the named module, as if it ended with `if __name__ == "__main__":
function()`; the node readers on the bin file), and run as its entry point. The
project's other files are its implementation and are not offered as tools of their own
(discover/scan.py's FOLDER_ENTRY_POINTS), so a module is never served twice.

`project.py` reads the tables, `python_reader.py` and `node_reader.py` the commands,
`reader.py` is the dialect discovery asks, `argv.py` how the runner starts a command.
"""
