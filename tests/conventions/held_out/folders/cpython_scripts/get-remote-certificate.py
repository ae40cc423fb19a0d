#!/usr/bin/env python3
#
# Print the certificate each server presents, in PEM form.
#
# args are HOST:PORT [, HOST:PORT...]

import sys

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("Usage:  %s HOSTNAME:PORTNUMBER [, HOSTNAME:PORTNUMBER...]\n" % sys.argv[0])
        sys.exit(1)
    for arg in sys.argv[1:]:
        host, port = arg.split(":")
        print(host, int(port))
