import typer

app = typer.Typer()


def old_callback():
    """
    Replaced.
    """


users_app = typer.Typer(callback=old_callback, name="users", help="Users.")


@users_app.callback(help="Manage the users.")
def users():
    """
    Users of the app.
    """


app.add_typer(users_app)


@users_app.command()
def create(name: str):
    print(f"Creating {name}")


if __name__ == "__main__":
    app()
