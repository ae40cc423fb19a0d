"""Compare two files and print their differences, in one of three formats."""

import optparse
import sys

usage = "usage: %prog [options] fromfile tofile"
parser = optparse.OptionParser(usage)
parser.add_option("-c", action="store_true", default=False, help="A context diff (the default)")
parser.add_option("-u", action="store_true", default=False, help="A unified diff")
parser.add_option("-n", action="store_true", default=False, help="An ndiff")
parser.add_option("-l", "--lines", type="int", default=3, help="Lines of context (default 3)")
(options, args) = parser.parse_args()

if len(args) == 0:
    parser.print_help()
    sys.exit(1)
if len(args) != 2:
    parser.error("give both a fromfile and a tofile")

fromfile, tofile = args
print(fromfile, tofile, options.lines, options.u, options.n)
