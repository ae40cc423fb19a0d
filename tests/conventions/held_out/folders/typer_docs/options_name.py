from typing import Annotated

import typer


def main(
    name: Annotated[str, typer.Option("--name", "-n")],
    formal: Annotated[bool, typer.Option("--formal", "-f")] = False,
):
    print(f"Good day, {name}." if formal else f"Hi {name}")


if __name__ == "__main__":
    typer.run(main)
