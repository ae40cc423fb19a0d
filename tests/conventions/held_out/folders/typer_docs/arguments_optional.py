import typer
from typing_extensions import Annotated

app = typer.Typer()


@app.command()
def main(name: Annotated[str, typer.Argument()]):
    print(f"Hi {name}")


if __name__ == "__main__":
    app()
