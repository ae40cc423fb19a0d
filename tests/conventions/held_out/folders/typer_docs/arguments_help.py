from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def main(name: Annotated[str, typer.Argument(help="Who to greet")]):
    print(f"Hi {name}")


if __name__ == "__main__":
    app()
