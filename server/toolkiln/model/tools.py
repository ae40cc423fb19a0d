"""`config/tools/<name>.json`: one tool, written by discovery and edited by users."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from toolkiln.model.confinement import ConfinementSettings
from toolkiln.model.limits import Limits
from toolkiln.model.oauth import Scope
from toolkiln.model.parameter import Parameter
from toolkiln.vocabulary import DialectName, PythonEntry, check_tool_name

# A name clients accept: the name of a tool, a prompt or a resource.
ToolName = Annotated[str, AfterValidator(check_tool_name)]
# How a tool's calls may run as MCP tasks: the words of the spec's `execution.taskSupport`.
TaskSupport = Literal["forbidden", "optional", "required"]


class WorkspaceConfig(BaseModel):
    """Where `path` parameters of a tool may point (seeds/003)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    allowed_paths: list[str] = Field(default_factory=lambda: ["{TOOL_DIR}/workspace"])
    allow_absolute_paths: bool = False
    follow_symlinks: bool = True


class SourceFingerprint(BaseModel):
    """What the script looked like when discovery last read it."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    mtime_ns: int
    size: int
    sha256: str
    # Other files the tool was declared from (a sidecar JSON), by path under the tools folder.
    companions: dict[str, SourceFingerprint] | None = None

    @model_serializer(mode="wrap")
    def _drop_no_companions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("companions") is None:
            data.pop("companions", None)
        return data


class DiscoveredParameter(BaseModel):
    """A parameter as discovery last wrote it: its name and type, its description's digest."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    name: str
    type: str
    description: str


class Discovered(BaseModel):
    """What discovery last wrote of the keys a user may correct (a description, a
    parameter's name, type or description), so that a later rediscovery tells the
    user's corrections from its own words and keeps them (discover/corrections.py).
    Texts are kept as digests (the first 12 hex digits of their SHA-256)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    description: str
    parameters: list[DiscoveredParameter] = Field(default_factory=list)


class ScriptConfig(BaseModel):
    """The `script_config` block of a per-tool config.

    Keys in `USER_KEYS` belong to the user: discovery writes them once, when it
    creates the file, and never again. All others are refreshed by rediscovery.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    # Owned by the user.
    name: ToolName
    title: str | None = None
    requires_confirmation: bool = False
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    timeout_seconds: float | None = Field(default=None, gt=0)
    max_concurrency: int | None = Field(default=None, ge=1)
    interactive: bool = False
    # Whether a call may run as an MCP task (SEP-2663; the spec's own words): "forbidden",
    # "optional" or "required". None: "optional" when `timeout_seconds` is over a minute.
    task: TaskSupport | None = None
    # An interactive tool run as a task: the questions it asks at once (config/server.json
    # `tasks.ask_window_seconds`) come as input-required rounds of the call, before the
    # task exists (SEP-2663 with SEP-2322). False: the task at once, questions through it.
    ask_before_task: bool = False
    workspace_config: WorkspaceConfig = Field(default_factory=WorkspaceConfig)
    limits: Limits = Field(default_factory=Limits)
    confinement: ConfinementSettings = Field(default_factory=ConfinementSettings)

    # Owned by discovery.
    description: str = ""
    script_path: str
    script_type: str
    dialect: DialectName
    parameters: list[Parameter] = Field(default_factory=list)
    declared_title: str | None = None
    version: str | None = None
    state: bool = False
    requirements_file: str | None = None
    python_entry: PythonEntry | None = None
    # One of several tools the script declares: the word that selects it (an argc `@cmd`
    # function, a subcommand, a Python function), which the runtime passes.
    command: str | None = None
    # The script's own JSON Schema (help-json's `input_schema`), used instead of one
    # made from `parameters`; `parameters` then only say how arguments reach the script.
    input_schema: dict[str, Any] | None = None
    # The environment variables the script reads besides its parameters (a static scan of
    # its text: `$WEATHER_API_KEY`, `os.environ["X"]`, `process.env.X`): the `.env`
    # values it gets (dotenv_file.py), and what `doctor` may report unset.
    env_reads: list[str] | None = None
    # A command a project declares (dialect `entry-point`): `module:function`, or its bin file.
    entry_point: str | None = None
    # What discovery guessed rather than read, for the user to check and correct
    # (`description`, `parameters.<name>.type`, ...): a value you edit is kept on rediscovery.
    guessed: list[str] = Field(default_factory=list)
    # What discovery last wrote of the keys above that a user may correct: not to be edited.
    discovered: Discovered | None = None

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave out the keys of entry points and guesses where a tool has none, so that the
        configs of other tools read as they always have."""
        data: dict[str, Any] = handler(self)
        for key in ("entry_point", "guessed", "discovered"):
            if not data.get(key, True):
                data.pop(key, None)
        return data

    @field_validator("parameters")
    @classmethod
    def _check_unique_parameters(cls, parameters: list[Parameter]) -> list[Parameter]:
        seen: set[str] = set()
        for param in parameters:
            if param.name in seen:
                raise ValueError(f"parameter {param.name!r} is declared twice")
            seen.add(param.name)
        return parameters


USER_KEYS = ("enabled", "tags", "scopes")
USER_SCRIPT_KEYS = (
    "name", "title", "requires_confirmation", "read_only", "destructive", "idempotent",
    "open_world", "timeout_seconds", "max_concurrency", "interactive", "task", "ask_before_task",
    "workspace_config",
    "limits", "confinement",
)  # fmt: skip


class ToolConfig(BaseModel):
    """`config/tools/<name>.json`: one tool, in the shape of seeds/003."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    format_version: Literal[1] = 1
    enabled: bool = True
    tags: list[str] = Field(default_factory=list)
    # OAuth scopes a caller needs to see and call this tool (config/server.json `oauth`).
    scopes: list[Scope] = Field(default_factory=list)
    auto_detected: bool = True
    created_by: str = "toolkiln discover"
    last_modified: str = ""
    script_config: ScriptConfig
    source: SourceFingerprint | None = None
