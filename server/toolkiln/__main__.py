from toolkiln.cli import main

main()
