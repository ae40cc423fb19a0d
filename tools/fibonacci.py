"""The first n Fibonacci numbers.

No docstring parameters and no INPUTS: the parameters come from execute()'s signature
and type hints, and the arguments arrive as keywords. A plain return value (not the
seeds/004 envelope) is the result as it is.
"""

from typing import Literal


def execute(n: int = 10, output: Literal["list", "text"] = "list") -> dict | str:
    if n < 0:
        raise ValueError("n must not be negative")
    numbers = [0, 1][:n]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return ", ".join(map(str, numbers)) if output == "text" else {"numbers": numbers}
