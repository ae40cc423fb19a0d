"""The environment names no parameter may have.

Every argument reaches its script as an environment variable named exactly after its
parameter (seeds/000), with the value the client chose. The client is not trusted, so
a parameter must never be named after a variable that the script, its interpreter, the
loader or a program the script runs reads as code, as options, as a place to load from
or as whom to trust: the client would choose that through the value. Such a name is a
discovery error (with its file and line), refused by the per-tool config's model, by
`--script-config` and by doctor.

Names are matched exactly (environment names are case-sensitive: a lower-case `path`
parameter is harmless and common, `PATH` is not), by families rather than one by one
where a family is a convention (every `LD_*` is the loader's, every `GIT_*` is git's),
plus a few suffixes of names written wholly in capitals (`*PATH`, `*HOME`, `*_OPTS`,
`*_OPTIONS`, `*FLAGS`: search paths, configuration homes and option strings of some
program). docs/security.md says why each family is here.
"""

from __future__ import annotations

# Each family: why it is reserved, its exact names, its prefixes (space-separated words).
_FAMILY_TABLE = (
    (
        "the loader, the C library or a GUI toolkit reads it, so a caller could load code into "
        "the script's programs or change how they find names, locales and time zones",
        "HOSTALIASES LOCALDOMAIN RESOLV_HOST_CONF GETCONF_DIR LANG LANGUAGE TZ TZDIR",
        "LD_ DYLD_ GLIBC_ MALLOC_ LC_ GTK_ GIO_ QT_ GDK_ GST_",
    ),
    (
        "the shell reads it, so a caller could run commands (BASH_ENV, PS4, PROMPT_COMMAND, "
        "BASH_FUNC_*) or change how every command line is split (IFS)",
        "IFS ENV PS1 PS2 PS3 PS4 PROMPT_COMMAND SHELLOPTS BASHOPTS GLOBIGNORE SHELL HISTFILE "
        "ZDOTDIR POSIXLY_CORRECT",
        "BASH_",
    ),
    (
        "programs read it to find themselves, their files and their temporary files",
        "USER LOGNAME PWD OLDPWD TMPDIR TMP TEMP TEMPDIR",
        "XDG_",
    ),
    (
        "an interpreter or a runtime reads it, so a caller could make it load code or take "
        "options of the caller's choosing",
        "CLASSPATH",
        "PYTHON PERL RUBY NODE_ LUA_ PHP JAVA_ _JAVA_ JDK_ DOTNET_ CORECLR_ COMPlus_ JULIA_ R_ TCL TK_",
    ),
    (
        "a package manager or a build tool reads it, so a caller could choose where code is "
        "downloaded from or which compiler runs",
        "CC CXX CPP LD AR AS MAKE MAKEFILES GOROOT GOPROXY GOENV GOTOOLCHAIN GOSUMDB GONOSUMDB "
        "GOINSECURE GOPRIVATE GONOPROXY GOBIN",
        "PIP_ UV_ NPM_CONFIG_ npm_config_ YARN_ GEM_ BUNDLE_ CARGO_ RUST",
    ),
    (
        "programs run it as a command or take options from it, so a caller could run a program "
        "of its choosing",
        "EDITOR VISUAL PAGER MANPAGER MANOPT BROWSER LESS LESSOPEN LESSCLOSE LESSKEY VIMINIT EXINIT "
        "MYVIMRC WGETRC INPUTRC CVS_RSH",
        "GIT_ SUDO_ SSH_ RSYNC_ SYSTEMD_",
    ),
    (
        "it chooses whom a program trusts or connects to (certificates, proxies, credentials, "
        "daemons, displays), so a caller could send the script's traffic or secrets elsewhere",
        "CURL_CA_BUNDLE REQUESTS_CA_BUNDLE KUBECONFIG GOOGLE_APPLICATION_CREDENTIALS DISPLAY "
        "XAUTHORITY WAYLAND_DISPLAY TERMINFO TERMINFO_DIRS TERMCAP NETRC GNUPGHOME",
        "SSL OPENSSL_ AWS_ CLOUDSDK_ AZURE_ DOCKER_ DBUS_ KRB5 GNUTLS_ NSS_",
    ),
    ("it is one of the server's own variables", "", "TOOLKILN_ MCPD_"),
)
_FAMILIES = tuple(
    (reason, frozenset(names.split()), tuple(prefixes.split())) for reason, names, prefixes in _FAMILY_TABLE
)

# Read by curl, wget, git, pip, Python and most HTTP clients, in either case.
_PROXIES = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy", "socks_proxy"})
_PROXY_REASON = (
    "curl, git, pip and Python read it in either case, so a caller could send the script's "
    "traffic through a proxy of its choosing"
)

# Suffixes of names written wholly in capitals, by convention a program's search path,
# its home (where it reads its configuration) or its options.
_SUFFIXES = (
    ("PATH", "it is a search path (PATH, CDPATH, NODE_PATH, GCONV_PATH, ...): programs load from it"),
    ("HOME", "it names where a program reads its configuration (HOME, JAVA_HOME, CURL_HOME, ...)"),
    ("_OPTS", "by convention it holds options of some program (JAVA_OPTS, MAVEN_OPTS, ...)"),
    ("_OPTIONS", "by convention it holds options of some program (JAVA_TOOL_OPTIONS, TAR_OPTIONS, ...)"),
    ("FLAGS", "by convention it holds options of a compiler or build tool (CFLAGS, MAKEFLAGS, ...)"),
)

SENSITIVE_ENV_NAMES = frozenset().union(*(names for _, names, _ in _FAMILIES))
SENSITIVE_ENV_PREFIXES = tuple(prefix for _, _, prefixes in _FAMILIES for prefix in prefixes)


_SUFFIX_WORDS = tuple(suffix for suffix, _ in _SUFFIXES)


def sensitive_env_reason(name: str) -> str | None:
    """Why no parameter may be named `name`, or None when it may."""
    if not _may_be_sensitive(name):
        return None
    for reason, names, prefixes in _FAMILIES:
        if name in names or name.startswith(prefixes):
            return reason
    if name.lower() in _PROXIES:
        return _PROXY_REASON
    if not any(char.islower() for char in name):
        for suffix, reason in _SUFFIXES:
            if name.endswith(suffix):
                return reason
    return None


def _may_be_sensitive(name: str) -> bool:
    """A few C-level tests that clear the common name (each parameter of a catalog of
    1,000 tools is checked at every start: ~5 ms by the families one by one)."""
    return (
        name in SENSITIVE_ENV_NAMES
        or name.startswith(SENSITIVE_ENV_PREFIXES)
        or name.endswith(_SUFFIX_WORDS)
        or name.lower() in _PROXIES
    )


def is_sensitive_env_name(name: str) -> bool:
    return sensitive_env_reason(name) is not None
