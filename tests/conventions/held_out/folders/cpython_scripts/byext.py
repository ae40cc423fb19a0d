#! /usr/bin/env python3

"""Count the files under the folders given, by extension."""

import os
import sys


def main():
    args = sys.argv[1:]
    if not args:
        args = [os.curdir]
    for arg in args:
        print(arg)


if __name__ == "__main__":
    main()
