// toolkiln's runner of function-style JavaScript tools (sigoden/llm-functions `tools/*.js`):
//   node run_function.cjs TOOL_FILE [FUNCTION]   < arguments as one JSON object
// It imports the tool (CommonJS or ES module), calls its exported `run(arguments)` (or the
// exported FUNCTION, one of an llm-functions agent's `tools.js`), awaits
// what it returns, and prints it: a string as it is, a number or boolean as text, an object
// or array as JSON, nothing for null or undefined. What the tool prints itself goes first.
// A throw (or a rejected promise) prints its message on stderr and exits with code 1.
"use strict";

const { pathToFileURL } = require("node:url");

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (chunk) => chunks.push(chunk));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

function findFunction(mod, name) {
  for (const candidate of [mod, mod && mod.default, mod && mod["module.exports"]]) {
    if (candidate && Object.prototype.hasOwnProperty.call(candidate, name) && typeof candidate[name] === "function") {
      return candidate[name].bind(candidate);
    }
  }
  return null;
}

function render(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  return JSON.stringify(value, null, 2);
}

function finish(text, code) {
  // A pipe is written asynchronously: exit once the last write has gone out, even if
  // the tool left a timer or a socket open.
  process.stdout.write(text, () => process.exit(code));
}

async function main() {
  const file = process.argv[2];
  const name = process.argv[3] || "run";
  const input = (await readStdin()).trim();
  const args = input ? JSON.parse(input) : {};
  const mod = await import(pathToFileURL(file).href);
  const run = findFunction(mod, name);
  if (run === null) {
    throw new Error(`${file} does not export a ${name} function`);
  }
  const value = await run(args);
  finish(render(value), 0);
}

main().catch((error) => {
  const message = error && error.message ? error.message : String(error);
  process.stderr.write(`${message}\n`, () => process.exit(1));
});
