"""The opt-in fallback: a program the user opted in, served with an `args` list."""
