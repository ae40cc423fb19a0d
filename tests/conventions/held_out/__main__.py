import sys

from tests.conventions.held_out.measure import main

main(sys.argv[1:])
