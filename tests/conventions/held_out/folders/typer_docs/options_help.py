from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def main(
    name: str,
    lastname: Annotated[str, typer.Option(help="The family name.")] = "",
    formal: Annotated[bool, typer.Option(help="Greet formally.")] = False,
):
    """
    Greet NAME, with a --lastname if given.
    """
    print(f"Good day, {name} {lastname}." if formal else f"Hi {name} {lastname}")


if __name__ == "__main__":
    app()
