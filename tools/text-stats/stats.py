"""The work of text-stats: read the arguments (a JSON object) from stdin, print a JSON object."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

# A word: letters or digits, with inner apostrophes or hyphens ("don't", "wood-fired").
WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
DEFAULTS = {
    "top": 5,
    "words_per_minute": 238,
    "case_sensitive": False,
    "stopwords": [],
    "aliases": {},
    "order": "count",
}


def text_stats(args: dict) -> dict:
    text = args["text"]
    fold = (lambda word: word) if args["case_sensitive"] else str.casefold
    words = [fold(word) for word in WORD.findall(text)]
    aliases = {fold(key): fold(value) for key, value in args["aliases"].items()}
    stopwords = {fold(word) for word in args["stopwords"]}
    counted = Counter(aliases.get(word, word) for word in words)
    for word in stopwords:
        counted.pop(word, None)
    top = sorted(counted.items(), key=lambda item: (-item[1], item[0]))[: args["top"]]
    if args["order"] == "alphabetical":
        top.sort(key=lambda item: item[0])
    return {
        "characters": len(text),
        "lines": len(text.splitlines()),
        "words": len(words),
        "unique_words": len(set(words)),
        "reading_minutes": round(len(words) / args["words_per_minute"], 2),
        "top_words": [{"word": word, "count": count} for word, count in top],
    }


def main() -> int:
    if sys.stdin.isatty():
        print(
            'usage: echo \'{"text": "..."}\' | ./run.sh   (toolkiln passes the arguments on stdin)',
            file=sys.stderr,
        )
        return 2
    try:
        args = {**DEFAULTS, **json.load(sys.stdin)}
    except json.JSONDecodeError as error:
        print(f"ERROR stdin is not a JSON object: {error}", file=sys.stderr)
        return 2
    if not isinstance(args.get("text"), str):
        print("ERROR the argument text is required", file=sys.stderr)
        return 2
    print(f"DEBUG analysing {len(args['text'])} characters", file=sys.stderr)
    print(json.dumps(text_stats(args), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
