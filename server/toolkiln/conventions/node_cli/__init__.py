"""Node command-line scripts built on commander, yargs or util.parseArgs."""
