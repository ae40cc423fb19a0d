"""The option section of help text, in the shapes programs print it:

    -o OUTPUT, --output OUTPUT   Where to write (default: out.txt)    argparse
    --mode {fast,slow}           How                                  argparse choices
    -o, --output TEXT  Where to write  [required]                     click
    --hash-type [md5|sha1]       click choices; --shout / --no-shout  click flags
    -o, --output=FILE            write to FILE                        GNU getopt_long
        --color[=WHEN]           an optional value                    GNU
    -f file      Read from file.                                      BSD man style
    -s KN, --speed=KN  Speed in knots [default: 10].                  docopt

An option line starts (after blanks) with `-`; its forms and metavariables run to two
blanks or a tab, or to the first word that is neither; its text goes on over the lines
below indented deeper. `Arguments:`, `positional arguments:` and `Commands:` sections
give the positionals' texts and the subcommands. Each line is read once.
"""

from __future__ import annotations

import re

from toolkiln.conventions.usage.model import UsageOption

MAX_OPTIONS = 300
DESCRIPTION_LIMIT = 500
_NAME = re.compile(r"(--?[A-Za-z0-9?#][\w.-]*)(\[?=.*)?")
_SECTION = re.compile(
    r"[ \t]*(positional arguments|arguments|args|commands|subcommands|available commands|"
    r"options|optional arguments|flags|global options)[ \t]*:?[ \t]*",
    re.IGNORECASE,
)
_ITEM = re.compile(r"[ \t]+([A-Za-z<{][\w<>{},.-]*)(?:(?:[ \t]{2,}|\t)(\S.*))?")
_DEFAULT = re.compile(r"[\[(]default[:=]?[ \t]+([^\])]{1,200})[\])]", re.IGNORECASE)
_REQUIRED = re.compile(r"[\[(]required[\])]", re.IGNORECASE)
_CHOICES = re.compile(r"[\[(](?:possible values|choices)[:=]?[ \t]+([^\])]{1,300})[\])]", re.IGNORECASE)
_REPEATS = re.compile(
    r"\[multiple\]|may be (?:given|repeated|used|specified) (?:more than once|multiple times|several times)"
    r"|can be (?:given|repeated|used|specified) (?:more than once|multiple times|several times)"
    r"|\brepeatable\b|can be repeated|may be repeated",
    re.IGNORECASE,
)


def read_options(lines: list[str]) -> tuple[list[UsageOption], dict[str, str], list[str]]:
    """The options the lines describe, the positionals' texts by name (an `Arguments:`
    section), and the subcommands a `Commands:` section lists."""
    options: list[UsageOption] = []
    arguments: dict[str, str] = {}
    commands: list[str] = []
    section = ""
    current: tuple[int, UsageOption | None, str] | None = None  # indent, option, argument name
    for raw in lines:
        line = raw.expandtabs(8).rstrip()
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped:
            current = None
            continue
        heading = _SECTION.fullmatch(line)
        if heading:
            section, current = heading.group(1).lower(), None
            continue
        if current is not None and indent > current[0] and not stripped.startswith("-"):
            _continue(current, stripped, arguments)
            continue
        if stripped.startswith("-") and len(options) < MAX_OPTIONS:
            option = read_option_line(stripped)
            if option is not None:
                options.append(option)
                current = (indent, option, "")
                continue
        current = None
        if indent and section in ("arguments", "positional arguments", "args", "commands", "subcommands",
                                  "available commands"):  # fmt: skip
            item = _ITEM.fullmatch(line[:400])
            if item is None:
                continue
            name = item.group(1)
            if name.startswith("{") and name.endswith("}"):
                commands += [word for word in name[1:-1].split(",") if word and word not in commands]
            elif "command" in section:
                commands += [name] if name not in commands else []
            else:
                arguments.setdefault(name.strip("<>").lower(), (item.group(2) or "").strip())
                current = (indent, None, name.strip("<>").lower())
    return options, arguments, commands


def _continue(current: tuple[int, UsageOption | None, str], text: str, arguments: dict[str, str]) -> None:
    _, option, argument = current
    if option is not None:
        if len(option.description) < DESCRIPTION_LIMIT:
            option.description = f"{option.description} {text}".strip()
            _read_description(option)
    elif argument and len(arguments.get(argument, "")) < DESCRIPTION_LIMIT:
        arguments[argument] = f"{arguments.get(argument, '')} {text}".strip()


def read_option_line(stripped: str) -> UsageOption | None:
    """One option line (without its indent): its forms, value, and text."""
    cut = [at for at in (stripped.find("  "), stripped.find("\t")) if at >= 0]
    spec_end = min(cut) if cut else len(stripped)
    words = _spec_words(stripped[:spec_end][:300])
    option = UsageOption()
    negate = False
    used = 0
    for word in words:
        if word == "/":
            negate = True
        elif word.startswith("-"):
            if not _name(word, option, negate):
                break
            negate = False
        elif option.names and _looks_like_value(word, loose=bool(cut)):
            _value(word, option)
        else:
            break
        used += 1
    if not option.names:
        return None
    rest = " ".join(words[used:])
    option.description = f"{rest} {stripped[spec_end:].strip()}".strip()[:DESCRIPTION_LIMIT]
    _read_description(option)
    return option


def _spec_words(text: str) -> list[str]:
    """The words of an option's forms, `{a, b}`, `[a|b]`, `<a b>` and `[=WHEN]` kept whole
    (each joined to the word it follows when written against it)."""
    words: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text.replace(", ", " "):
        if char in "[{<":
            depth += 1
        elif char in "]}>" and depth:
            depth -= 1
        if char.isspace() and depth == 0:
            if current:
                words.append("".join(current).rstrip(","))
                current = []
            continue
        current.append(char)
    if current:
        words.append("".join(current).rstrip(","))
    return words


def _name(word: str, option: UsageOption, negate: bool) -> bool:
    match = _NAME.fullmatch(word)
    if match is None:
        return False
    name, value = match.group(1), match.group(2)
    if negate:
        option.negations = (*option.negations, name)
        return True
    if name not in option.names:
        option.names.append(name)
    if value:
        option.attached = True
        option.optional_value = value.startswith("[")
        _value(value.lstrip("[=").rstrip("]") or "VALUE", option)
    return True


def _looks_like_value(word: str, *, loose: bool = False) -> bool:
    """A metavariable: `FILE`, `<file>`, `{a,b}`, `[a|b]`, `[X ...]`, `...`; with `loose`
    (the forms end at two blanks, BSD's `-f file`) any one word."""
    if word.startswith(("{", "<", "[")) or word.endswith("...") or word.isupper():
        return True
    return loose and bool(re.fullmatch(r"[a-z][\w-]{0,30}", word))


def _value(word: str, option: UsageOption) -> None:
    if "..." in word:
        option.repeatable = True
    if option.value is not None:  # `-o OUTPUT, --output OUTPUT`: the same value again
        if word == "RANGE":  # click's `INTEGER RANGE`
            option.value += " RANGE"
        return
    text = word.replace("...", "").strip(" ") or word
    if text.startswith("{") and text.endswith("}"):
        option.choices = tuple(part.strip() for part in text[1:-1].split(",") if part.strip())
    elif text.startswith("[") and text.endswith("]") and "|" in text:
        option.choices = tuple(part.strip() for part in text[1:-1].split("|") if part.strip())
    if text not in ("[]", ""):
        option.value = text


def _read_description(option: UsageOption) -> None:
    text = option.description
    found = _DEFAULT.search(text)
    if found and option.takes_value:
        option.default = found.group(1).strip().strip("\"'").rstrip(".")
    if _REQUIRED.search(text):
        option.required = True
    if not option.choices:
        choices = _CHOICES.search(text)
        if choices:
            option.choices = tuple(
                part.strip() for part in re.split(r"[,|]", choices.group(1)) if part.strip()
            )
    if _REPEATS.search(text):
        option.repeatable = True
