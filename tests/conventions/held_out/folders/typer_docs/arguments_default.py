from typing import Annotated

import typer


def main(name: Annotated[str, typer.Argument()] = "Ada Lovelace"):
    print(f"Hi {name}")


if __name__ == "__main__":
    typer.run(main)
