#!/usr/bin/env python3
"""Find the lines of a text that contain a word.

A legacy argparse script: main() takes no parameters, so toolkiln runs the file as a
plain script and passes the arguments as the options declared below.
"""

import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--word", required=True, help="The word to look for")
    parser.add_argument("--ignore-case", action="store_true", help="Match regardless of letter case")
    parser.add_argument("text", help="The text to search")
    args = parser.parse_args()
    word = args.word.lower() if args.ignore_case else args.word
    for line in args.text.splitlines():
        if word in (line.lower() if args.ignore_case else line):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
