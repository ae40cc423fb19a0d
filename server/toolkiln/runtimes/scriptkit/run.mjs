// toolkiln's runner of Script Kit scripts, with no Script Kit installed:
//   node run.mjs SCRIPT [NAME ...]   < the call's arguments as one JSON object
// It points `@johnlindquist/kit` at toolkiln's kit.mjs (hooks.mjs), sets Script Kit's
// globals, imports the script (an ES module, top-level await and all) and prints what it
// handed back: sendResult()'s MCP result, output()'s object, or its `export default`
// (a string as it is, anything else as JSON). The NAMEs are the arguments that `arg()`
// takes in order (a `// mcp:` script's parameters); their values come from stdin, never
// from the command line. While the script runs, what it prints is held: with a result
// it goes to stderr as log lines (Script Kit's console is a log, not the result), without
// one it is the result. A throw prints its message on stderr and exits with code 1.
import * as fs from "node:fs";
import { createRequire, register } from "node:module";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";

const HELD_LIMIT = 8 * 1024 * 1024;
const [script, ...names] = process.argv.slice(2);
const scriptUrl = pathToFileURL(script).href;
register(new URL("./hooks.mjs", import.meta.url), { data: { script: scriptUrl } });
const kit = await import(new URL("./kit.mjs", import.meta.url).href);

let held = [];
let heldBytes = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => {
  if (held === null) return write(chunk, encoding, callback);
  const bytes = Buffer.from(chunk, typeof encoding === "string" ? encoding : undefined);
  held.push(bytes);
  heldBytes += bytes.length;
  if (heldBytes > HELD_LIMIT) release(1);
  if (typeof callback === "function") callback();
  if (typeof encoding === "function") encoding();
  return true;
};

/** The held output, on stdout (fd 1) or as log lines on stderr (fd 2); then no more holding. */
function release(fd) {
  const text = Buffer.concat(held ?? []);
  held = null;
  if (fd === 1) {
    fs.writeSync(1, text);
  } else {
    for (const line of text.toString("utf8").split("\n")) {
      if (line) fs.writeSync(2, `INFO ${line}\n`);
    }
  }
}

function render(value) {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? "";
}

let finished = false;
function finish(exported) {
  if (finished) return;
  finished = true;
  const back = kit.handedBack();
  const result = back ? back.value : exported;
  if (result === undefined || result === null) {
    if (held !== null) release(1);
    return;
  }
  if (held !== null) release(2);
  fs.writeSync(1, render(result));
}

// `exit()` or `process.exit()` in the middle of the script: what it handed back still counts.
process.on("exit", () => finish(undefined));

function readStdin() {
  try {
    return fs.readFileSync(0, "utf8");
  } catch {
    return "";
  }
}

function explain(error) {
  const message = error && error.message ? error.message : String(error);
  const missing = error instanceof ReferenceError && /^(\S+) is not defined/.exec(message);
  if (missing) {
    return (
      `${message}: if ${missing[1]} is one of Script Kit's globals, toolkiln's runtime does not ` +
      `provide it (it provides ${Object.keys(kit.GLOBALS).slice(0, 12).join(", ")}, ...)`
    );
  }
  return message;
}

try {
  const raw = readStdin();
  const text = raw.trim();
  const inputs = text ? JSON.parse(text) : {};
  // A script that reads stdin itself still finds the JSON there; and `require` works in it.
  const stdin = Readable.from([Buffer.from(raw)]);
  Object.defineProperty(process, "stdin", { get: () => stdin, configurable: true });
  globalThis.require = createRequire(scriptUrl);
  kit.configure(inputs, names);
  kit.installGlobals();
  globalThis.args = names.map((name) => inputs[name]);
  process.argv = [process.argv[0], script, ...globalThis.args.map((value) => String(value))];
  const mod = await import(scriptUrl);
  finish(mod.default);
} catch (error) {
  finished = true;
  if (held !== null) release(1);
  fs.writeSync(2, `${explain(error)}\n`);
  process.exitCode = 1;
}
