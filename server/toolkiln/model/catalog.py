"""`config/tools.json`: the compiled catalog, the only file the server reads."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from toolkiln.model.confinement import ConfinementSettings, ServerConfinement
from toolkiln.model.limits import Limits
from toolkiln.model.oauth import OAuthSettings
from toolkiln.model.parameter import Parameter
from toolkiln.model.server import CatalogSettings, InteractiveSettings, RunCommandSettings, TaskSettings
from toolkiln.model.state import StateSettings
from toolkiln.model.telemetry import TelemetrySettings
from toolkiln.model.tools import TaskSupport, WorkspaceConfig
from toolkiln.vocabulary import DialectName, PythonEntry


class ToolHints(BaseModel):
    """Behaviour hints a client may show or act on (MCP tool annotations)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


class CompiledTool(BaseModel):
    """One enabled tool in the compiled catalog: everything the server needs."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    name: str
    title: str | None = None
    description: str = ""
    dialect: DialectName
    script_path: str
    script_type: str
    parameters: list[Parameter] = Field(default_factory=list)
    input_schema: dict[str, Any]
    hints: ToolHints = Field(default_factory=ToolHints)
    requires_confirmation: bool = False
    # The script may ask the client for input while it runs (runner/interactive.py).
    interactive: bool = False
    timeout_seconds: float | None = None
    # Whether a call may run as an MCP task (SEP-2663): forbidden, optional, required.
    task_support: TaskSupport = "forbidden"
    # Run as a task, its first questions are input-required rounds of the call (serve/calls/parked.py).
    ask_before_task: bool = False
    max_concurrency: int | None = None
    workspace: WorkspaceConfig = Field(default_factory=WorkspaceConfig)
    # The tool's own limits over the server's defaults.
    limits: Limits = Field(default_factory=Limits)
    # The tool's own confinement over the server's defaults (every setting has a value).
    confinement: ConfinementSettings = Field(default_factory=ServerConfinement)
    tags: list[str] = Field(default_factory=list)
    # OAuth scopes a caller needs to see and call it: its config's `scopes` and those of
    # its tags (config/server.json `oauth.tag_scopes`). Unused with the shared token.
    scopes: list[str] = Field(default_factory=list)
    state: bool = False
    version: str | None = None
    python_entry: PythonEntry | None = None
    # Which of the script's commands this tool is (one file, several tools; see ScriptConfig).
    command: str | None = None
    # A command a project declares (dialect `entry-point`): `module:function`, or its bin file.
    entry_point: str | None = None
    requirements_file: str | None = None
    # The variables of the folder's `.env` it gets, besides those its pass_env names.
    env_reads: list[str] = Field(default_factory=list)
    config_file: str

    @model_serializer(mode="wrap")
    def _drop_no_entry_point(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("entry_point", "") is None:
            data.pop("entry_point", None)
        return data


class CompiledPrompt(BaseModel):
    """One enabled prompt: its template is read from `prompts_dir` when it is asked for."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    name: str
    title: str | None = None
    description: str = ""
    arguments: list[Parameter] = Field(default_factory=list)
    asks: list[Parameter] = Field(default_factory=list)
    template_path: str
    config_file: str


class CompiledResource(BaseModel):
    """One enabled resource, or resource template (a `uri` with `{placeholders}`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    name: str
    title: str | None = None
    description: str | None = None
    uri: str
    template: bool = False
    mime_type: str
    binary: bool = False
    file_path: str
    config_file: str
    completions: dict[str, list[str]] = Field(default_factory=dict)


class CompiledRunCommand(RunCommandSettings):
    """`run_command`'s settings as the catalog keeps them: the roots relative to its folder,
    and every folder a tool may write (never a place run_command works or names)."""

    # Required: a catalog built before this fence existed must be built again.
    tool_writable: list[str]


class Catalog(BaseModel):
    """`config/tools.json`: the compiled tools, prompts and resources, each sorted by name.

    The folders are relative to the one that holds this file, so a project can move.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    format_version: Literal[1] = 1
    generated_at: str = ""
    tools_dir: str
    tools: list[CompiledTool] = Field(default_factory=list)
    prompts_dir: str | None = None
    prompts: list[CompiledPrompt] = Field(default_factory=list)
    resources_dir: str | None = None
    resources: list[CompiledResource] = Field(default_factory=list)
    # Every folder a tool (enabled or not) or run_command may write, relative to this file's
    # folder: never a source of tools, so the runner refuses a script that lies in one.
    writable_folders: list[str] = Field(default_factory=list)
    # The built-in `run_command` tool's settings when it is turned on (its entry in `tools` runs with these).
    run_command: CompiledRunCommand | None = None
    # How long task results are kept, and how much the task store may hold (config/server.json).
    tasks: TaskSettings = Field(default_factory=lambda: TaskSettings())
    # How long an interactive call waits for a client's answers (config/server.json).
    interactive: InteractiveSettings = Field(default_factory=lambda: InteractiveSettings())
    # Where replicas share their state (config/server.json `state`; a Redis URL, without password).
    state: StateSettings = Field(default_factory=lambda: StateSettings())
    # Search mode for big catalogs (config/server.json `catalog`).
    catalog_search: CatalogSettings = Field(default_factory=lambda: CatalogSettings())
    # Whose access tokens are taken (config/server.json `oauth`); None: the shared bearer token.
    oauth: OAuthSettings | None = None
    # Traces and metrics (config/server.json `telemetry`).
    telemetry: TelemetrySettings = Field(default_factory=lambda: TelemetrySettings())
