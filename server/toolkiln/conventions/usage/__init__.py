"""Usage text, read wherever it is found: a shell script's `usage()` function, heredoc
or `# Usage:` header, a Python or Node script's printed `Usage:` string, or what a
confined `--help` probe printed. One reader for every convention that has usage text:

    Usage: prog [-v] [-o FILE] <input> [<more>...]
      -o, --output=FILE   Where to write [default: out.txt]

`read.read_usage_text` gives a `UsageText`: the usage lines read with docopt's grammar
(synopsis.py) and the option section in the shapes programs print it (options.py:
argparse, click, GNU getopt_long, BSD man style, docopt). Every regular expression here is
anchored and bounded per line: the work grows with the text.
"""
