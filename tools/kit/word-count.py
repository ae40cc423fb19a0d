#!/usr/bin/env python3
# Name: Word Count
# Description: Count the words, lines and characters of a text, and list its most frequent words.
"""A kit script in Python: the schema is a real Python dict, read by toolkiln as text."""

import json
import re
import sys
from collections import Counter

schema = {
    "input": {
        "text": {"type": "string", "required": True, "description": "The text to count", "min": 1},
        "top": {
            "type": "integer",
            "default": 3,
            "min": 0,
            "max": 20,
            "description": "How many of the most frequent words to list",
        },
        "ignore_case": {"type": "boolean", "default": True, "description": "Count The and the as one word"},
    },
}

arguments = json.load(sys.stdin)  # every input, defaults filled in
text = arguments["text"]
words = re.findall(r"[\w']+", text.lower() if arguments["ignore_case"] else text)
print(
    json.dumps(
        {
            "words": len(words),
            "lines": len(text.splitlines()),
            "characters": len(text),
            "top_words": [[word, count] for word, count in Counter(words).most_common(arguments["top"])],
        }
    )
)
