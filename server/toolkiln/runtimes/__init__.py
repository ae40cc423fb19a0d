"""Small runtimes that other tools' conventions need to run unmodified (argc's
`--argc-eval`), shipped with toolkiln and put on a script's PATH by the runner."""
