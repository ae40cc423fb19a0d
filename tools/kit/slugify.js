#!/usr/bin/env node
// Name: Slugify
// Description: Turn a title into a URL slug: lower-case ASCII letters and digits joined by a separator.

// The schema is a JavaScript object literal: unquoted keys, single quotes, comments and
// trailing commas are all fine. toolkiln reads it as text and never runs it.
const schema = {
  input: {
    text: { type: 'string', required: true, description: 'The title to slugify', min: 1 },
    separator: { type: 'enum', enum: ['-', '_', '.'], default: '-', description: 'What joins the words' },
    max_length: { type: 'integer', min: 1, max: 200, default: 80, description: 'Longest slug, in characters' },
    keep: {
      type: 'array',
      items: { type: 'string' },
      default: [],
      description: 'Words kept in their original case (acronyms)',
    },
  },
  output: { slug: { type: 'string' } },
}

const fs = require('fs')
const { text, separator, max_length: maxLength, keep } = JSON.parse(fs.readFileSync(0, 'utf8'))

const words = text
  .normalize('NFKD')
  .replace(/[\u0300-\u036f]/g, '') // drop accents: é -> e
  .split(/[^A-Za-z0-9]+/)
  .filter(Boolean)
  .map((word) => (keep.includes(word) ? word : word.toLowerCase()))
let slug = words.join(separator).slice(0, maxLength)
while (slug.endsWith(separator)) slug = slug.slice(0, -1)
if (!slug) {
  console.error(`ERROR ${JSON.stringify(text)} has no letters or digits to make a slug of`)
  process.exit(2)
}
console.log(JSON.stringify({ slug }))
