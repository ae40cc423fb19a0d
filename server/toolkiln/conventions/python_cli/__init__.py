"""Python command-line scripts: argparse, click, typer, docopt."""
