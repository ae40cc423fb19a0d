"""Hole 12 of issue 16: environment names a tool may not declare. Every argument reaches
its script as an env var named after its parameter, with the client's value; a parameter
named after a variable that a program reads as code, options, a place to load from, or
whom to trust would hand that choice to the client. Discovery refuses it (file and line),
and doctor reports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.doctor.helpers import doctor, found
from toolkiln.discover import discover_tools
from toolkiln.model import is_sensitive_env_name

# The names the issue found accepted, then a few of each family.
FOUND_ACCEPTED = [
    "GLIBC_TUNABLES", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "LOCPATH", "HOSTALIASES",
    "BASH_XTRACEFD", "SSLKEYLOGFILE", "PROMPT_COMMAND",
]  # fmt: skip
FAMILIES = [
    # interpreters and runtimes
    "PERL5OPT", "PERL5LIB", "PERL5DB", "PYTHONSTARTUP", "PYTHONWARNINGS", "RUBYOPT", "NODE_OPTIONS",
    "NODE_TLS_REJECT_UNAUTHORIZED", "JAVA_TOOL_OPTIONS", "CLASSPATH", "LUA_INIT", "PHPRC",
    "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH", "R_PROFILE_USER", "TCLLIBPATH",
    # loader and C library
    "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "MALLOC_CHECK_", "GCONV_PATH", "NLSPATH", "RES_OPTIONS",
    "LOCALDOMAIN", "GTK_MODULES",
    # shell
    "BASH_ENV", "BASH_FUNC_ls", "ENV", "SHELLOPTS", "PS4", "IFS", "CDPATH", "ZDOTDIR", "FPATH",
    # commands and options other programs take
    "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL", "GIT_DIR", "EDITOR", "VISUAL", "PAGER",
    "LESSOPEN", "MANPAGER", "SUDO_ASKPASS", "SSH_ASKPASS", "RSYNC_RSH", "TAR_OPTIONS", "MAKEFLAGS",
    "CFLAGS", "WGETRC", "VIMINIT",
    # package managers and builds
    "PIP_INDEX_URL", "npm_config_registry", "NPM_CONFIG_USERCONFIG", "BUNDLE_GEMFILE", "CARGO_HOME",
    "RUSTC_WRAPPER", "GOFLAGS", "GOTOOLCHAIN", "CC",
    # whom to trust or connect to
    "OPENSSL_CONF", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "https_proxy", "HTTPS_PROXY", "All_Proxy",
    "KUBECONFIG", "DOCKER_HOST", "AWS_ENDPOINT_URL", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY",
    "TERMINFO", "XDG_CONFIG_HOME", "CURL_HOME", "GNUPGHOME",
    # where files go, and the process's own
    "TMPDIR", "TMP", "HOME", "PATH", "PWD", "LANG", "LC_ALL", "TZ", "TOOLKILN_TOOL_DIR",
]  # fmt: skip
# Lower case or mixed case names that no program reads (names are case-sensitive).
HARMLESS = [
    "path",
    "home",
    "editor",
    "pager",
    "tmpdir",
    "ld_preload",
    "git_ref",
    "my_PATH",
    "Term",
    "NAME",
    "URL",
]


@pytest.mark.parametrize("name", FOUND_ACCEPTED + FAMILIES)
def test_discovery_refuses_the_parameter_naming_file_and_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, name: str
) -> None:
    make_tool(
        "t.sh",
        f"#!/bin/bash\n# Tool: t\n# Description: d\n# @param ok: fine (type: string)\n"
        f"# @param {name}: x\necho\n",
    )
    report = discover_tools(tools_dir, config_dir)
    [error] = map(str, report.errors)
    assert error.startswith(
        f"t.sh:5: parameter name {name!r} would overwrite the environment variable {name}"
    )
    assert "rename the parameter" in error
    assert report.tools == [] or all(status.change == "failed" for status in report.tools)


def test_a_kit_and_a_help_json_declaration_are_refused_too(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "kit.js",
        """\
        // Name: kit
        // Description: d
        const schema = {
          input: {
            GIT_SSH_COMMAND: { type: "string" },
          },
        };
        """,
    )
    make_tool(
        "help.sh",
        """\
        #!/bin/bash
        echo '{"description": "d"}'
        echo '{"NODE_OPTIONS": {"description": "x", "value_type": "string", "required": true}}' >&2
        """,
    )
    errors = sorted(map(str, discover_tools(tools_dir, config_dir).errors))
    assert len(errors) == 2
    assert "help.sh" in errors[0] and "environment variable NODE_OPTIONS" in errors[0]
    assert errors[1].startswith("kit.js:5: ") and "environment variable GIT_SSH_COMMAND" in errors[1]


@pytest.mark.parametrize("name", HARMLESS)
def test_names_no_program_reads_are_fine(name: str) -> None:
    assert not is_sensitive_env_name(name)


def test_doctor_reports_it_as_an_error(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("t.sh", "#!/bin/bash\n# Tool: t\n# Description: d\n# @param GLIBC_TUNABLES: x\necho\n")
    [finding] = found(doctor(tools_dir, config_dir), "env-shadowing")
    assert (finding.severity, finding.line) == ("error", 4)
    assert "the loader, the C library" in finding.message
