from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def main(name: Annotated[str, typer.Argument(envvar="GREETED_NAME")] = "there"):
    print(f"Hi {name}")


if __name__ == "__main__":
    app()
