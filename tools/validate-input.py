#!/usr/bin/env python3
"""validate-input: size limits (string length, integer range), an enum with a
default, and the two option types that may be optional without a default
(boolean, which then defaults to false, and any, which is then left out).
toolkiln checks the limits before the script runs; the script adds a check that
JSON Schema cannot express here and answers exit 2 when it fails."""

import json
import re
import sys

METADATA = {"description": "Check a sign-up form and echo the accepted values", "state": False}
OPTIONS = {
    "username": {
        "description": "Login name: 3 to 16 letters, digits, '_' or '-'",
        "required": True,
        "value_type": "string",
        "size": {"min": 3, "max": 16},
    },
    "age": {
        "description": "Age in years",
        "required": True,
        "value_type": "integer",
        "size": {"min": 13, "max": 130},
    },
    "role": {
        "description": "Access level",
        "required": False,
        "value_type": {"enum": ["viewer", "editor", "admin"]},
        "default_value": "viewer",
    },
    "newsletter": {
        "description": "Subscribe to the newsletter (false when left out)",
        "required": False,
        "value_type": "boolean",
    },
    "profile": {
        "description": "Free-form profile data: any JSON value (left out when not given)",
        "required": False,
        "value_type": "any",
    },
}
USERNAME = re.compile(r"^[A-Za-z0-9_-]+$")


def main() -> int:
    if sys.argv[1:] == ["--help"]:
        print(json.dumps(METADATA))
        print(json.dumps(OPTIONS), file=sys.stderr)
        return 0
    form = json.load(sys.stdin)
    print(f"DEBUG received {sorted(form)}", file=sys.stderr)
    if not USERNAME.match(form["username"]):
        print("ERROR username may contain only letters, digits, '_' and '-'", file=sys.stderr)
        return 2
    accepted = {
        "valid": True,
        "username": form["username"],
        "age": form["age"],
        "role": form.get("role", "viewer"),
        "newsletter": form.get("newsletter", False),
        "profile": form.get("profile"),
    }
    print(json.dumps(accepted, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
