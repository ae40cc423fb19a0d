#! /usr/bin/env python3

# List the symbolic links in the folders given and where they point.
# Arguments are folders; the default is the current one.

import os
import sys


def main():
    args = sys.argv[1:]
    if not args:
        args = [os.curdir]
    for arg in args:
        print(arg + ":")


if __name__ == "__main__":
    main()
