"""The compiled tools (and prompts and resources) the server offers, from `config/tools.json` only."""

from __future__ import annotations

import os
from pathlib import Path

from toolkiln.containment import escape_reason, is_plain, locate, simple_relative
from toolkiln.errors import ToolRunError
from toolkiln.files import load_catalog
from toolkiln.model import Catalog, CompiledPrompt, CompiledResource, CompiledTool
from toolkiln.schema import ArgumentChecker
from toolkiln.writable import WritableFolders, catalog_writable_folders


class UnknownToolError(ToolRunError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown tool: {name!r}")


class Registry:
    """Tools by name, with their scripts' paths and argument checkers."""

    def __init__(self, catalog: Catalog, catalog_file: Path) -> None:
        self.catalog = catalog
        self.catalog_file = catalog_file
        self.tools_dir = (catalog_file.parent / catalog.tools_dir).resolve()
        self.tools = {tool.name: tool for tool in catalog.tools}
        self.prompts: dict[str, CompiledPrompt] = {prompt.name: prompt for prompt in catalog.prompts}
        self.resources: list[CompiledResource] = list(catalog.resources)
        self.prompts_dir = _folder(catalog_file, catalog.prompts_dir)
        self.resources_dir = _folder(catalog_file, catalog.resources_dir)
        self._checkers: dict[str, ArgumentChecker] = {}
        self._writable: WritableFolders | None = None
        # script_path -> the script, for a path that names it plainly and lies in no
        # writable folder as written (see `script_path`); None: not such a path.
        self._plain_scripts: dict[str, Path | None] = {}

    @classmethod
    def load(cls, catalog_file: Path) -> Registry:
        return cls(load_catalog(catalog_file), catalog_file)

    def get(self, name: str) -> CompiledTool:
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownToolError(name) from None

    def checker(self, tool: CompiledTool) -> ArgumentChecker:
        # Built on first call, not at start: serving 1,000 tools costs nothing until used.
        checker = self._checkers.get(tool.name)
        if checker is None:
            checker = self._checkers[tool.name] = ArgumentChecker(tool.input_schema)
        return checker

    def script_path(self, tool: CompiledTool) -> Path:
        """The tool's script, which must lie inside the tools folder and in no folder a
        tool may write (`build` checked both, but tools.json may have been edited since,
        built by an older toolkiln, or a symlink planted): else `OutsideFolderError`."""
        if not tool.script_path:  # a built-in tool (run_command) runs no script
            raise ToolRunError(f"tool {tool.name!r} is built in and has no script")
        # The common case, checked per call at the cost of an open: a script whose path
        # has no symlink on its way resolves to itself, inside the tools folder, and then
        # lies in a writable folder only as written (a lookup made once). Any symlink,
        # a missing file or an odd path takes the whole check below, as before.
        if not tool.entry_point:
            plain = self._plain_script(tool.script_path)
            if plain is not None and is_plain(str(plain)):
                return plain
        what = f"the script of tool {tool.name!r}"
        real, reason = locate(self.tools_dir, tool.script_path)
        if reason is not None or real is None:
            raise OutsideFolderError(
                f"{what} is refused: {reason}. Run `toolkiln build` (which leaves such an entry out)"
            )
        script = self.tools_dir / tool.script_path
        folder = self.writable_folders().writer_of(script, real=real)
        runs = _command_file(script, tool.entry_point) if tool.entry_point else None
        if folder is None and runs is not None:  # a declared command: also the file it runs
            folder = self.writable_folders().writer_of(runs, real=Path(os.path.realpath(runs)))
            what = f"the file {runs} that tool {tool.name!r} runs"
        else:
            what = f"the script of tool {tool.name!r}, {script},"
        if folder is not None:
            raise WritableSourceError(
                f"{what} is refused: it lies in {folder.describe()}, and a folder a tool may write "
                "is never a source of tools. Move it out of that folder and run `toolkiln build` "
                "(which refuses such a tool)"
            )
        return script

    def _plain_script(self, relative: str) -> Path | None:
        """`tools_dir/relative` when `relative` is plain (no `..`, `.`, empty part) and
        that path lies in no writable folder as written; else None."""
        if relative not in self._plain_scripts:
            script = self.tools_dir / relative
            plain = (
                simple_relative(relative)
                and not str(self.tools_dir).startswith("//")
                and self.writable_folders().writer_of(script, real=script) is None
            )
            self._plain_scripts[relative] = script if plain else None
        return self._plain_scripts[relative]

    def writable_folders(self) -> WritableFolders:
        """Every folder a tool or run_command may write, as the catalog says (`writable.py`)."""
        if self._writable is None:
            folders = catalog_writable_folders(self.catalog, self.catalog_file, self.tools_dir)
            self._writable = WritableFolders(folders)
        return self._writable

    def prompt_path(self, prompt: CompiledPrompt) -> Path:
        assert self.prompts_dir is not None
        return inside(self.prompts_dir, prompt.template_path, f"the template of prompt {prompt.name!r}")

    def resource_path(self, resource: CompiledResource) -> Path:
        assert self.resources_dir is not None
        return inside(self.resources_dir, resource.file_path, f"the file of resource {resource.name!r}")


class OutsideFolderError(ToolRunError):
    """A compiled entry names a file outside its folder: refused, never run or read."""


class WritableSourceError(OutsideFolderError):
    """A tool's script lies in a folder a tool may write: refused, never run."""


def inside(folder: Path, relative: str, what: str) -> Path:
    reason = escape_reason(folder, relative)
    if reason is not None:
        raise OutsideFolderError(
            f"{what} is refused: {reason}. Run `toolkiln build` (which leaves such an entry out)"
        )
    return folder / relative


def _folder(catalog_file: Path, relative: str | None) -> Path | None:
    return (catalog_file.parent / relative).resolve() if relative is not None else None


def _command_file(script: Path, entry_point: str) -> Path | None:
    from toolkiln.conventions.entry_points.project import command_file  # only for such tools

    return command_file(script, entry_point)
