"""`config/prompts/<name>.json` and `config/resources/<name>.json`: the prompts and
resources found under `prompts/` and `resources/`, with the same ownership rule as
tools: discovery refreshes what it detects and never touches what the user set."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolkiln.model.parameter import Parameter
from toolkiln.model.tools import SourceFingerprint, ToolName

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PromptSettings(BaseModel):
    """The `prompt_config` block."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    # Owned by the user.
    name: ToolName
    title: str | None = None
    # Owned by discovery.
    description: str = ""
    declared_title: str | None = None
    arguments: list[Parameter] = Field(default_factory=list)
    # `@ask` values: asked of the user (elicitation) each time the prompt is got.
    asks: list[Parameter] = Field(default_factory=list)
    template_path: str

    @field_validator("arguments")
    @classmethod
    def _check_arguments(cls, arguments: list[Parameter]) -> list[Parameter]:
        for argument in arguments:
            if argument.type != "string":
                raise ValueError(f"prompt argument {argument.name!r}: prompt arguments are strings")
        return arguments


class ResourceSettings(BaseModel):
    """The `resource_config` block. A file whose path holds `{placeholders}` is a template."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    # Owned by the user.
    name: ToolName
    title: str | None = None
    description: str | None = None
    uri: str | None = None  # None: toolkiln://resources/<file path>
    mime_type: str | None = None  # None: the detected one
    # A template's suggested values per placeholder, offered by `completion/complete`.
    completions: dict[str, list[str]] = Field(default_factory=dict)
    # Owned by discovery.
    file_path: str
    detected_mime_type: str
    binary: bool = False

    @model_validator(mode="after")
    def _check_uri_placeholders(self) -> ResourceSettings:
        if self.uri is not None and placeholders(self.uri) != placeholders(self.file_path):
            raise ValueError(
                f"uri {self.uri!r} must hold the same placeholders as its file {self.file_path!r}: "
                f"{sorted(placeholders(self.file_path))}"
            )
        unknown = set(self.completions) - placeholders(self.file_path)
        if unknown:
            raise ValueError(f"completions for {sorted(unknown)}: the file name has no such placeholder")
        return self


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


class _ItemConfig(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    format_version: Literal[1] = 1
    enabled: bool = True
    tags: list[str] = Field(default_factory=list)
    last_modified: str = ""
    source: SourceFingerprint | None = None


class PromptConfig(_ItemConfig):
    prompt_config: PromptSettings


class ResourceConfig(_ItemConfig):
    resource_config: ResourceSettings
