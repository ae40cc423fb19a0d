"""Node scripts that read their command line by hand, as `sys.argv` scripts do in Python:

    #!/usr/bin/env node
    // Greet someone by name.
    const name = process.argv[2];
    const greeting = process.argv[3] || "Hello";
    console.log(`${greeting}, ${name}!`);

is a tool with a required `name` and an optional `greeting` (default "Hello"), given as
the words of its command line in that order (`node greet.js Ada Hi`). What is read is in
node_argv_read.py; a word the code does not name is named from the printed usage line
(conventions/usage) or its place, and that guess is said in its description and in a
warning. A script that reads stdin (`process.stdin`, `fs.readFileSync(0)`) gets a `stdin`
parameter; one that reads nothing, run as a program (a `#!` line and the run bit) with a
header comment, is a tool without parameters. Arguments reach it as they reach a plain
shell script (the `shell` convention's argv: conventions/shell/argv.py), by its `#!` line or
its extension.

A TypeScript script (`.ts`, `.mts`) that reads `process.argv` by hand is read the same
way (a binding's type annotation, `const name: string = process.argv[2]`, is skipped)
and runs with the first TypeScript runner installed (interpreters.py: tsx, ts-node,
bun, deno, or node 22.6 or later); with none installed it is not a tool, and the reason
names what to install.

Not served, each with its reason: argv read in a way toolkiln cannot name
(`process.argv.includes("-v")`), a command-line library it does not read (minimist,
meow, ...), or a script that asks while it runs (readline's `question`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool, make_parameter, read_unframed
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.fallback.text import header_comment
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_NAME_PATTERN, is_sensitive_env_name

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe
    from toolkiln.conventions.by_hand.node_argv_read import NodeReading
    from toolkiln.model import Parameter

CLAIM_IS_CERTAIN = True  # read as text, never run
MAX_SCRIPT_BYTES = 1024 * 1024
MAX_WORDS = 100
STDIN = "stdin"
# The per-tool config has no field for a guess yet: the description and a warning say it.
GUESS_NOTE = "[Name guessed by toolkiln from {guess}; rename it in this config if it reads wrong.]"
_SUFFIXES = {".js", ".mjs", ".cjs", ".ts", ".mts"}
_TYPESCRIPT = (".ts", ".mts")
TYPESCRIPT_REMEDY = (
    "install a TypeScript runner: tsx (`npm install -g tsx`), bun or deno, or node 22.6 or "
    "later (which strips the types itself)"
)
_POOR = {"arg", "args", "argv", "a", "x", "val", "value", "param", "_"}
FALLBACK_HINT = (
    "serve it as it is with the fallback (`discovery.fallback` in config/server.json), or "
    "declare its parameters (commander, yargs or parseArgs; docs/dialects.md)"
)


def claims(candidate: Candidate) -> bool:
    """A `.js`/`.mjs`/`.cjs` file, or an executable whose `#!` names node, that reads
    `process.argv` or `process.stdin`; or a documented executable one that reads nothing."""
    if candidate.path.suffix.lower() not in _SUFFIXES and not (
        candidate.executable and candidate.script_type in ("node", "typescript")
    ):
        return False
    if fallback.opted_in(candidate):
        return False
    head = candidate.head
    if "process.argv" in head or "process.stdin" in head:
        return True
    runs = candidate.executable and head.startswith("#!") and candidate.script_type in ("node", "typescript")
    return runs and "module.exports" not in head and "export " not in head and bool(header_comment(head))


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    text = read_unframed(candidate, MAX_SCRIPT_BYTES, "a Node script", "argv-by-hand")
    from toolkiln.conventions.by_hand.node_argv_read import read_node_argv  # only when a script is read

    reading = read_node_argv(text)
    if reading.library:
        raise NotATool(f"reads its command line with {reading.library}, which toolkiln does not read: "
                       f"{FALLBACK_HINT}", kind="argv-by-hand")  # fmt: skip
    if reading.problems:
        line, what = reading.problems[0]
        quoted = text.splitlines()[line - 1].strip()[:80] if line <= text.count("\n") + 1 else ""
        raise NotATool(f"{what} (line {line}: `{quoted}`), so not every word it reads is named: "
                       f"{FALLBACK_HINT}", kind="argv-by-hand")  # fmt: skip
    if reading.asks:
        raise NotATool(f"asks for its input while it runs ({reading.asks}), which a tool call cannot "
                       "answer: take the values as arguments to serve it", kind="asks-input")  # fmt: skip
    warnings: list[DiscoveryError] = []
    parameters = _parameters(path, reading, warnings)
    description = header_comment(candidate.head).split("\n\n")[0].replace("\n", " ").strip()
    if _is_typescript(candidate):
        _check_typescript_runner(candidate)
    if not description and not parameters:
        raise NotATool("a Node script that takes no arguments, with no header comment to say what it does "
                       "(add one, `// What it does.`, to serve it as a tool)",
                       kind="undocumented-script")  # fmt: skip
    return [Declaration(dialect="shell", description=description, parameters=parameters, warnings=warnings)]


def _is_typescript(candidate: Candidate) -> bool:
    return candidate.path.suffix.lower() in _TYPESCRIPT or candidate.script_type == "typescript"


def _check_typescript_runner(candidate: Candidate) -> None:
    """A TypeScript script by hand runs by its `#!` line, else with the first runner
    installed (tsx, ts-node, bun, deno, or node that strips types: interpreters.py); with
    none, it is no tool here, and the reason names what to install."""
    from toolkiln.interpreters import find_interpreter, runs_by_itself

    if runs_by_itself(candidate.path) or find_interpreter(candidate.path) is not None:
        return
    raise NotATool(f"is TypeScript, and nothing here runs TypeScript: {TYPESCRIPT_REMEDY}",
                   kind="runtime-missing")  # fmt: skip


def _parameters(path: str, reading: NodeReading, warnings: list[DiscoveryError]) -> list[Parameter]:
    from toolkiln.conventions.usage.read import guessed_names, read_usage_text

    usage = next((u for s in reading.strings if (u := read_usage_text(s)) is not None and u.patterns), None)
    words = [p for p in usage.positionals if not p.choices] if usage else []
    prose = guessed_names(usage) if usage else set()
    last = max([*reading.slots, reading.required_words, 0])
    if reading.rest is not None:
        last = min(last, reading.rest.index - 1) if reading.slots else reading.rest.index - 1
    if last > MAX_WORDS:
        raise DiscoveryError(f"reads word {last} of its command line; toolkiln reads at most {MAX_WORDS}",
                             path=path)  # fmt: skip
    parameters: list[Parameter] = []
    taken: set[str] = set()
    required_upto = max(
        [reading.required_words, *(i for i, s in reading.slots.items() if not s.optional)], default=0
    )
    for index in range(1, last + 1):
        slot = reading.slots.get(index)
        word = words[index - 1] if index - 1 < len(words) and not words[index - 1].repeated else None
        name, guess = _name(slot.name if slot else None, word.name if word else None, f"arg{index}", taken)
        if word and name == word.name and name in prose:
            guess = "the usage line's prose"
        description = word.description or word.text if word else ""
        if guess:
            description = f"{description} {GUESS_NOTE.format(guess=guess)}".strip()
            warnings.append(DiscoveryError(
                f"parameter {name!r} is named from {guess}, not from the code: check it",
                path=path, line=slot.line if slot else None,
            ))  # fmt: skip
        fields: dict[str, object] = {"name": name, "description": description, "option": ""}
        if index <= required_upto:
            fields["required"] = True
        elif slot is not None and slot.default is not None:
            fields["default"] = str(slot.default) if isinstance(slot.default, str) else slot.default
            fields["type"] = "string" if isinstance(slot.default, str) else "number"
        parameters.append(make_parameter(path, slot.line if slot else None, **fields))
    if reading.rest is not None:
        rest = reading.rest
        repeated = next((w for w in words[rest.index - 1 :] if w.repeated), None)
        name, _ = _name(rest.name, repeated.name if repeated else None, "args", taken)
        minimum = reading.required_words - rest.index + 1
        bounds: dict[str, object] = {"min": float(minimum)} if minimum > 0 else {"default": []}
        parameters.append(make_parameter(
            path, rest.line, name=name, type="array", items="string", option="", required=minimum > 0,
            description=f"The script's arguments from the {rest.index}th on, one item each.", **bounds,
        ))  # fmt: skip
    if reading.reads_stdin:
        name = STDIN if STDIN not in taken else "stdin_text"
        parameters.append(make_parameter(
            path, None, name=name, type="string", multiline=True, default="",
            description="Text given to the script on its standard input.",
        ))  # fmt: skip
    return parameters


def _name(
    variable: str | None, usage: str | None, fallback_name: str, taken: set[str]
) -> tuple[str, str | None]:
    good = variable is not None and len(variable) >= 2 and variable.lower() not in _POOR
    choices = ((variable, None), (usage, "the usage line"), (fallback_name, "its position alone"))
    for name, guess in choices if good else choices[1:]:
        if name and PARAM_NAME_PATTERN.match(name) and not is_sensitive_env_name(name) and name not in taken:
            name = name if name != STDIN else f"{name}_path"
            taken.add(name)
            return name, guess
    taken.add(fallback_name)
    return fallback_name, "its position alone"
