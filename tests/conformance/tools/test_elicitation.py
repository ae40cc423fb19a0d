#!/usr/bin/env python3
# Tool: test_elicitation
# Description: Tests server-initiated elicitation (user input request)
# @param message: The message to show the user (type: string, required: true)
import json
import sys

arguments = json.loads(sys.stdin.readline())
request = {
    "message": arguments["message"],
    "requestedSchema": {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    },
}
print("ELICIT " + json.dumps(request), file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
if "error" in answer:
    sys.exit(f"ERROR {answer['error']}")
print(f"User response: action={answer['action']}, content={json.dumps(answer.get('content', {}))}")
