#!/usr/bin/env node
// Name: {{ title }}
// Description: Greet someone by name. (Replace this with one line that tells a model what your tool does and when to use it.)
//
// The tool {{ name }}, in the kit dialect (docs/dialects.md): made from the template
// kit/tool.js (toolkiln's, or yours in a TEMPLATE/ folder beside the tools folder) by
// `toolkiln new {{ name }} --dialect kit`; a copy made by hand works too. A kit tool is named after its Name
// comment: its lower-case letters and digits joined by `-` (`My tool` is my-tool), so
// when copying by hand, write your tool's Name above. Then:
//
//   $EDITOR tools/{{ name }}.js
//   toolkiln discover && toolkiln build
//   toolkiln call {{ name }} name=Ada times=2
//   echo '{"name": "Ada", "times": 2, "shout": false}' | node tools/{{ name }}.js   # or by hand
//   toolkiln doctor                       # if something does not work
//
// HOW TOOLKILN READS IT. `toolkiln discover` reads the Name and Description comments and
// the `schema` object below as text, and never runs the file. Each input has a `type`
// (string, integer, number, boolean, array, object, any, enum), and may have
// `description`, `required`, `default`, `enum`, `min`, `max`, `items` and `secret`.
// Comments, single quotes and trailing commas are fine.
//
// HOW THE ARGUMENTS ARRIVE. One JSON object on stdin, checked and with the defaults
// filled in, and each input as an environment variable named after it
// (process.env.times). The script runs by its shebang line, or, without one, by the
// interpreter for its extension (node for .js; python3, bash and TypeScript runners work too).
//
// WHAT TO SEND BACK. stdout is the result (a JSON object is also structured content);
// stderr lines that start with INFO, WARNING, ERROR or DEBUG are the tool's log, and
// `PROGRESS 3/10 message` lines report progress. Exit 0 on success, 1 internal error,
// 2 bad request, 3 forbidden, 4 not found.

const schema = {
  input: {
    name: { type: 'string', required: true, description: 'Who to greet', min: 1, max: 100 },
    times: { type: 'integer', default: 1, min: 1, max: 5, description: 'How many greetings' },
    shout: { type: 'boolean', default: false, description: 'Greet in capital letters' },
  },
}

const fs = require('fs')
const { name, times = 1, shout = false } = JSON.parse(fs.readFileSync(0, 'utf8'))
if (!name) {
  console.error('ERROR name is required')
  process.exit(2)
}

let greeting = `Hello, ${name}!`
if (shout) greeting = greeting.toUpperCase()
const lines = []
for (let number = 1; number <= times; number++) {
  console.error(`PROGRESS ${number}/${times} greeting ${name}`)
  lines.push(greeting)
}
console.error(`INFO greeted ${name} ${times} times`)
console.log(JSON.stringify({ greeting, lines }))
