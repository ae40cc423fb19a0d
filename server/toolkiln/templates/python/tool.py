#!/usr/bin/env python3
"""Greet someone by name. (Replace this line: what the tool does and when a model should use it.)

@param name: Who to greet (type: string, required: true, min: 1, max: 100)
@param times: How many greetings (type: integer, default: 1, min: 1, max: 5)
@param shout: Greet in capital letters (type: boolean, default: false)

The tool {{ name }}, in the python dialect (docs/dialects.md): made from the template
python/tool.py (toolkiln's, or yours in a TEMPLATE/ folder beside the tools folder) by
`toolkiln new {{ name }} --dialect python`; a copy made by hand works too (the file's name without .py is the
tool's name; the template's placeholders are only in this docstring). Then:

    $EDITOR tools/{{ name }}.py
    toolkiln discover && toolkiln build
    toolkiln call {{ name }} name=Ada times=2
    ./tools/{{ name }}.py '{"name": "Ada"}'          # or run it by hand
    toolkiln doctor                                 # if something does not work

HOW TOOLKILN READS IT. `toolkiln discover` reads this file with `ast` and never imports
it: the docstring's first paragraph is the tool's description, and each `@param` line
a parameter, in the grammar of the annotations dialect (type: string, integer, number,
boolean, array, object, any or enum; required; default; enum: a|b; min; max; items).

HOW IT RUNS. Calls run `execute(params)` in a warm worker process that imported this
module once, with the server's own Python: `params` is a dict of the arguments, already
checked against the parameters and with the defaults filled in. Packages it needs go in
a requirements.txt beside it and must be installed for that Python (`toolkiln doctor`
names the missing ones).

WHAT TO SEND BACK. Return {"status": "success", "data": {...}, "metadata": {...}}: `data`
becomes the result (and its structured content), `metadata` the result's `_meta`. Return
{"status": "error", "error": "message"} for a failure the caller should see; an exception
becomes an error result with its type and message. `print()` goes to stderr: lines that
start with INFO, WARNING, ERROR or DEBUG are the tool's log, `PROGRESS 3/10 message`
lines report progress.
"""

import json
import sys
import time


def execute(params: dict) -> dict:
    started = time.perf_counter()
    greeting = f"Hello, {params['name']}!"
    if params["shout"]:
        greeting = greeting.upper()
    lines = []
    for number in range(1, params["times"] + 1):
        print(f"PROGRESS {number}/{params['times']} greeting {params['name']}", file=sys.stderr)
        lines.append(greeting)
    print(f"INFO greeted {params['name']} {params['times']} times", file=sys.stderr)
    return {
        "status": "success",
        "data": {"greeting": greeting, "lines": lines},
        "metadata": {"duration_sec": time.perf_counter() - started, "items_processed": len(lines)},
    }


if __name__ == "__main__":
    # By hand: ./tool.py '{"name": "Ada", "times": 2}' (no defaults are filled in here).
    arguments = {"times": 1, "shout": False, **json.loads(sys.argv[1] if len(sys.argv) > 1 else "{}")}
    print(json.dumps(execute(arguments), indent=2))
