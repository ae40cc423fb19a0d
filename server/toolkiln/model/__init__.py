"""The file formats toolkiln writes, and the parameter model they share.

`config/tools/<name>.json` (`ToolConfig`), `config/prompts/<name>.json`
(`PromptConfig`) and `config/resources/<name>.json` (`ResourceConfig`) are written by
discovery and edited by users; `config/tools.json` (`Catalog`) is compiled from them
and is the only file the server reads. Every read goes through these models.
"""

from toolkiln.model.catalog import (
    Catalog,
    CompiledPrompt,
    CompiledResource,
    CompiledRunCommand,
    CompiledTool,
    ToolHints,
)
from toolkiln.model.confinement import (
    ConfinementMode,
    ConfinementSettings,
    FilesystemAccess,
    ServerConfinement,
)
from toolkiln.model.items import (
    PLACEHOLDER,
    PromptConfig,
    PromptSettings,
    ResourceConfig,
    ResourceSettings,
    placeholders,
)
from toolkiln.model.limits import Limits
from toolkiln.model.parameter import Parameter, value_problems
from toolkiln.model.server import (
    DEFAULT_DENIED_COMMANDS,
    CatalogSettings,
    DiscoverySettings,
    InteractiveSettings,
    RunCommandSettings,
    ServerConfig,
    TaskSettings,
)
from toolkiln.model.state import StateSettings
from toolkiln.model.telemetry import TelemetrySettings
from toolkiln.model.tools import (
    USER_KEYS,
    USER_SCRIPT_KEYS,
    ScriptConfig,
    SourceFingerprint,
    ToolConfig,
    WorkspaceConfig,
)
from toolkiln.vocabulary import (
    PARAM_NAME_PATTERN,
    PARAM_TYPES,
    SENSITIVE_ENV_NAMES,
    SENSITIVE_ENV_PREFIXES,
    TOOL_NAME_PATTERN,
    USER_PROMPT_KEYS,
    USER_RESOURCE_KEYS,
    DialectName,
    ParamType,
    PythonEntry,
    check_tool_name,
    is_sensitive_env_name,
    value_matches_type,
)

__all__ = [
    "DEFAULT_DENIED_COMMANDS",
    "PARAM_NAME_PATTERN",
    "PARAM_TYPES",
    "PLACEHOLDER",
    "SENSITIVE_ENV_NAMES",
    "SENSITIVE_ENV_PREFIXES",
    "TOOL_NAME_PATTERN",
    "USER_KEYS",
    "USER_PROMPT_KEYS",
    "USER_RESOURCE_KEYS",
    "USER_SCRIPT_KEYS",
    "Catalog",
    "CatalogSettings",
    "CompiledPrompt",
    "CompiledResource",
    "CompiledRunCommand",
    "CompiledTool",
    "ConfinementMode",
    "ConfinementSettings",
    "DialectName",
    "DiscoverySettings",
    "FilesystemAccess",
    "InteractiveSettings",
    "Limits",
    "ParamType",
    "Parameter",
    "PromptConfig",
    "PromptSettings",
    "PythonEntry",
    "ResourceConfig",
    "ResourceSettings",
    "RunCommandSettings",
    "ScriptConfig",
    "ServerConfig",
    "ServerConfinement",
    "SourceFingerprint",
    "StateSettings",
    "TaskSettings",
    "TelemetrySettings",
    "ToolConfig",
    "ToolHints",
    "WorkspaceConfig",
    "check_tool_name",
    "is_sensitive_env_name",
    "placeholders",
    "value_matches_type",
    "value_problems",
]
