from typing import Annotated

import typer


def main(name: str, lastname: Annotated[str, typer.Option(prompt=True)]):
    print(f"Hi {name} {lastname}")


if __name__ == "__main__":
    typer.run(main)
