#! /usr/bin/env python3

"Expand the tabs of the files given into spaces; print the names changed."

import getopt
import sys


def main():
    tabsize = 8
    try:
        opts, args = getopt.getopt(sys.argv[1:], "t:")
        if not args:
            raise getopt.error("At least one file argument required")
    except getopt.error as msg:
        print(msg)
        print("usage:", sys.argv[0], "[-t tabwidth] file ...")
        return
    for optname, optvalue in opts:
        if optname == "-t":
            tabsize = int(optvalue)
    for filename in args:
        print(filename, tabsize)


if __name__ == "__main__":
    main()
