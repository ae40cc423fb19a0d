"""`parseArgs` of `node:util`, read as text:

    const { values, positionals } = parseArgs({
      options: {
        name: { type: 'string', short: 'n' },
        tag: { type: 'string', multiple: true },
        verbose: { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });

Each option is a parameter (`multiple` makes an array); parseArgs has no required
options. `allowPositionals: true` (or `strict: false`) adds `positionals`, an array of
words given after `--`. The options may be a `const` object named in the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.conventions.javascript.calls import read_calls
from toolkiln.conventions.node_cli.params import check_unique, default_of, make_cli_parameter, parameter_name
from toolkiln.conventions.node_cli.spec import CliSpec
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_TYPES = {"string": "string", "boolean": "boolean"}
_BUILT_IN = {"help", "version"}


def read_parse_args(text: str, path: str) -> CliSpec:
    source = read_calls(text, frozenset({"parseArgs"}))
    calls = [call for call in source.calls if call.args]
    if not calls:
        raise DiscoveryError("calls parseArgs without a configuration object", path=path)
    call = calls[0]
    config = call.args[0]
    if not isinstance(config, dict) or not isinstance(config.get("options", {}), dict):
        raise DiscoveryError(
            "cannot read the parseArgs configuration: write `{ options: {...} }` as an object literal "
            "(or a `const` object) in the file",
            path=path,
            line=call.line,
        )
    parameters: list[Parameter] = []
    lines: dict[str, int] = {}
    for key, settings in config.get("options", {}).items():
        if not isinstance(settings, dict) or settings.get("type") not in _TYPES:
            raise DiscoveryError(
                f"option {key!r}: `type` must be 'string' or 'boolean'", path=path, line=call.line
            )
        value_type = _TYPES[settings["type"]]
        if key in _BUILT_IN and value_type == "boolean":
            continue  # `--help` / `--version`: what the script says about itself, not an input
        multiple = settings.get("multiple") is True
        fields: dict[str, Any] = {
            "name": parameter_name(key),
            "type": "array" if multiple else value_type,
            "items": value_type if multiple else None,
            "option": f"--{key}",
            "default": default_of(settings.get("default"), "array" if multiple else value_type, value_type),
            "description": settings["description"] if isinstance(settings.get("description"), str) else "",
        }
        lines[fields["name"]] = call.line
        parameters.append(make_cli_parameter(path, call.line, **fields))
    if config.get("allowPositionals") is True or config.get("strict") is False:
        parameters.append(
            make_cli_parameter(
                path, call.line, name="positionals", type="array", items="string", option="--",
                description="the words the script reads as its positional arguments",
            )
        )  # fmt: skip
    check_unique(parameters, path, lines)
    return CliSpec(parameters=parameters)
