#!/usr/bin/env python3
# Tool: test_sampling
# Description: Tests server-initiated sampling (LLM completion request)
# @param prompt: The prompt to send to the LLM (type: string, required: true)
#
# An interactive tool (`"interactive": true` in its config) reads its arguments as one
# JSON line on stdin, asks on stderr, and reads each answer as one JSON line on stdin.
import json
import sys

arguments = json.loads(sys.stdin.readline())
request = {
    "messages": [{"role": "user", "content": {"type": "text", "text": arguments["prompt"]}}],
    "maxTokens": 100,
}
print("SAMPLE " + json.dumps(request), file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
if "error" in answer:
    sys.exit(f"ERROR {answer['error']}")
print(f"LLM response: {answer['content']['text']}")
