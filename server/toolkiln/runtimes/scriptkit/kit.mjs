// toolkiln's stand-in for `@johnlindquist/kit`: the globals that Script Kit's MCP-style
// scripts use, for a run with no Script Kit installed and no one at a screen.
//
// The call's arguments (toolkiln's stdin JSON) are what `params()`, `tool()`, `input()`
// and `defineSchema(...).input()` return; `arg()` takes the next value of the positional
// arguments, in order (a `// mcp:` script's parameters). What the script hands back
// (`sendResult`, `output`, `export default`) is kept here and printed by run.mjs. A prompt
// that needs Script Kit's window (`div`, `editor`, `form`, ...) throws a `KitUIError`.
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as fsPromises from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";

export class KitUIError extends Error {
  constructor(what) {
    super(
      `${what} needs Script Kit's UI (a prompt or a window), which toolkiln does not have: ` +
        "as an MCP tool the script must take its input from arg(), params() or its schema " +
        "and return its result with export default, sendResult() or output()",
    );
    this.name = "KitUIError";
  }
}

const state = { inputs: {}, positional: [], next: 0, sent: undefined, output: undefined };

/** Called by run.mjs before the script is imported. */
export function configure(inputs, names) {
  state.inputs = inputs;
  state.positional = names.map((name) => inputs[name]);
}

/** What the script handed back: { kind: "sent" | "output", value } or null. */
export function handedBack() {
  if (state.sent !== undefined) return { kind: "sent", value: state.sent };
  if (state.output !== undefined) return { kind: "output", value: state.output };
  return null;
}

function describe(config) {
  if (typeof config === "string") return config;
  if (config && typeof config.placeholder === "string") return config.placeholder;
  return "";
}

// ---- input --------------------------------------------------------------------------

export async function arg(placeholderOrConfig, _choices) {
  if (state.next < state.positional.length) {
    const value = state.positional[state.next];
    state.next += 1;
    return value;
  }
  const asked = describe(placeholderOrConfig);
  throw new KitUIError(`arg(${asked ? JSON.stringify(asked) : ""}) has no value left to take, and`);
}

export async function params(_schema) {
  return { ...state.inputs };
}

export async function tool(_config) {
  return { ...state.inputs };
}

export async function input() {
  return { ...state.inputs };
}

export function output(data) {
  state.output = { ...(state.output ?? {}), ...(data ?? {}) };
}

export function defineSchema(schema) {
  return { input, output, schema };
}

// As Script Kit's sendResult: a string, one content item (with isError,
// structuredContent and _meta beside it) or a list of items, as an MCP tool result.
export async function sendResult(content) {
  if (typeof content === "string") {
    state.sent = { content: [{ type: "text", text: content }] };
  } else if (Array.isArray(content)) {
    state.sent = { content };
  } else {
    const { isError, structuredContent, _meta, ...item } = content ?? {};
    const result = { content: [item] };
    if (isError !== undefined) result.isError = isError;
    if (structuredContent !== undefined) result.structuredContent = structuredContent;
    if (_meta !== undefined) result._meta = _meta;
    state.sent = result;
  }
}

export async function env(name, fallback) {
  const value = process.env[name];
  if (value !== undefined && value !== "") return value;
  if (typeof fallback === "string") return fallback;
  throw new KitUIError(`env(${JSON.stringify(name)}): ${name} is not set, and asking for it`);
}

// ---- harmless helpers ---------------------------------------------------------------

// Script Kit turns Markdown into HTML for its window; an MCP client reads Markdown itself.
export const md = (markdown) => String(markdown ?? "");
export const wait = (ms) => new Promise((done) => setTimeout(done, ms));
export const uuid = () => randomUUID();
export const home = (...parts) => nodePath.join(os.homedir(), ...parts);
export const kenvPath = (...parts) =>
  nodePath.join(process.env.KENV || nodePath.join(os.homedir(), ".kenv"), ...parts);
export const kitPath = (...parts) =>
  nodePath.join(process.env.KIT || nodePath.join(os.homedir(), ".kit"), ...parts);
export const tmpPath = (...parts) => nodePath.join(os.tmpdir(), ...parts);
export const isFile = async (file) => fs.existsSync(file) && fs.statSync(file).isFile();
export const isDir = async (dir) => fs.existsSync(dir) && fs.statSync(dir).isDirectory();
export const pathExists = async (file) => fs.existsSync(file);
export const ensureDir = (dir) => fsPromises.mkdir(dir, { recursive: true });
export const readJson = async (file) => JSON.parse(await fsPromises.readFile(file, "utf8"));
export const writeJson = (file, value) => fsPromises.writeFile(file, JSON.stringify(value, null, 2));
export const { readFile, writeFile, appendFile, readdir, copyFile, rm, stat, mkdir } = fsPromises;
export function exit(code = 0) {
  process.exit(code);
}

// A log line, not a result: toolkiln keeps `INFO` lines on stderr as the tool's logs.
const note = (what) => async (message) => {
  const text = typeof message === "string" ? message : JSON.stringify(message);
  process.stderr.write(`INFO ${what}: ${text ?? ""}\n`);
};
export const notify = note("notify");
export const toast = note("toast");
export const hud = note("hud");
export const say = note("say");
export const beep = note("beep");

// Script Kit's `path` global is Node's path module that is also a file prompt.
function pathPrompt() {
  throw new KitUIError("path()");
}
export const path = Object.assign(pathPrompt, nodePath);

// ---- prompts and windows: Script Kit's UI -------------------------------------------

export const UI_ONLY = [
  "div", "editor", "form", "fields", "select", "mini", "micro", "textarea", "drop",
  "hotkey", "term", "chat", "widget", "webcam", "mic", "eyeDropper", "template", "grid",
  "selectFile", "selectFolder", "find", "setPanel", "setPreview", "setPrompt", "show",
  "hide", "inspect", "copy", "paste", "getSelectedText", "setSelectedText", "dev",
  "formReact",
];

const ui = Object.fromEntries(
  UI_ONLY.map((name) => [
    name,
    () => {
      throw new KitUIError(`${name}()`);
    },
  ]),
);
export const {
  div, editor, form, fields, select, mini, micro, textarea, drop, hotkey, term, chat, widget,
  webcam, mic, eyeDropper, template, grid, selectFile, selectFolder, find, setPanel,
  setPreview, setPrompt, show, hide, inspect, copy, paste, getSelectedText, setSelectedText,
  dev, formReact,
} = ui;

export const GLOBALS = {
  arg, params, tool, input, output, defineSchema, sendResult, env, md, wait, uuid, home,
  kenvPath, kitPath, tmpPath, isFile, isDir, pathExists, ensureDir, readJson, writeJson,
  readFile, writeFile, appendFile, readdir, copyFile, rm, stat, mkdir, exit, notify, toast,
  hud, say, beep, path, ...ui,
};

/** Script Kit's globals on globalThis, as Script Kit sets them before a script runs. */
export function installGlobals() {
  Object.assign(globalThis, GLOBALS);
}
