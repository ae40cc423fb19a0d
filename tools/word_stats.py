"""Count the words, lines and characters of a text, and its most frequent words.

A Python-module tool (seeds/004): discovery reads this docstring with `ast`, and calls
run `execute()` in a warm worker process that imports this file once.

@param text: The text to measure (type: string, required: true, min: 1)
@param top: How many of the most frequent words to list (type: integer, default: 3, min: 0, max: 50)
"""

import re
import sys
import time
from collections import Counter


def execute(params: dict) -> dict:
    started = time.perf_counter()
    words = re.findall(r"[\w']+", params["text"].lower())
    print(f"INFO counting {len(words)} words", file=sys.stderr)
    return {
        "status": "success",
        "data": {
            "words": len(words),
            "lines": len(params["text"].splitlines()),
            "characters": len(params["text"]),
            "top_words": [word for word, _ in Counter(words).most_common(params["top"])],
        },
        "metadata": {
            "duration_sec": time.perf_counter() - started,
            "cost_usd": 0.0,
            "items_processed": len(words),
        },
    }
