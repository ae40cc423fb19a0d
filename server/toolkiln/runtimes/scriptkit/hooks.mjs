// Module hooks of toolkiln's Script Kit runtime (registered by run.mjs):
// `@johnlindquist/kit` (and any subpath of it) is toolkiln's kit.mjs, so a script that
// imports Script Kit runs where Script Kit is not installed; and the script itself is an
// ES module, as in a Script Kit kenv (whose package.json says "type": "module").
const KIT = new URL("./kit.mjs", import.meta.url).href;
let script = null;

export async function initialize(data) {
  script = data && data.script;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "@johnlindquist/kit" || specifier.startsWith("@johnlindquist/kit/")) {
    return { url: KIT, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (url === script && loaded.format === "commonjs") {
    // A .js script outside a "type": "module" package: Script Kit runs it as a module.
    const source = loaded.source ?? (await nextLoad(url, { ...context, format: "module" })).source;
    return { format: "module", source, shortCircuit: true };
  }
  return loaded;
}
