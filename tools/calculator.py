#!/usr/bin/env python3
"""calculator: a help-json tool in Python that uses the newer key spellings
`type` and `default` (beside the seeds/000 `value_type` and `default_value`),
an enum option, float options, and exit code 2 with an ERROR log line for a
request it cannot answer (division by zero)."""

import json
import math
import sys

METADATA = {
    "title": "Calculator",
    "description": "Add, subtract, multiply or divide two numbers",
    "version": "1.2.0",
    "state": False,
}
OPTIONS = {
    "operation": {
        "description": "What to do with a and b",
        "required": True,
        "type": {"enum": ["add", "subtract", "multiply", "divide"]},
    },
    "a": {"description": "First operand", "required": True, "type": "float"},
    "b": {"description": "Second operand", "required": True, "type": "float"},
    "precision": {
        "description": "Digits after the decimal point in the result",
        "required": False,
        "type": "integer",
        "default": 10,
        "size": {"min": 0, "max": 15},
    },
}


def main() -> int:
    if sys.argv[1:] == ["--help"]:
        print(json.dumps(METADATA))
        print(json.dumps(OPTIONS, indent=2), file=sys.stderr)
        return 0
    args = json.load(sys.stdin)
    operation, a, b = args["operation"], float(args["a"]), float(args["b"])
    precision = args.get("precision", 10)
    if operation == "divide" and b == 0:
        print("ERROR division by zero: b must not be 0", file=sys.stderr)
        return 2
    result = {
        "add": lambda: a + b,
        "subtract": lambda: a - b,
        "multiply": lambda: a * b,
        "divide": lambda: a / b,
    }[operation]()
    if not math.isfinite(result):
        print(f"ERROR the result of {operation} is too large to represent", file=sys.stderr)
        return 2
    result = round(result, precision)
    print(int(result) if result.is_integer() else result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
