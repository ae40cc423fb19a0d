"""Tests embedded resource content response.

A Python tool returns a rich result the same way a script prints one: a dict with a
`content` array of MCP content items.
"""

INPUTS = {}


def execute(params):
    return {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }
        ]
    }
