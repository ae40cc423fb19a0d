#!/bin/bash
# Name: Create Note
# Description: Format a note in Markdown or plain text from a title, a body and an optional tag. Prints the note; writes no file.
#
# In a shell script the schema sits in comments: each line of the block starts with `#`.
# schema = {
#   input: {
#     title: { type: "string", required: true, description: "The note's title", min: 1, max: 100 },
#     body: { type: "string", description: "The text of the note", default: "" },
#     format: { type: "enum", enum: ["markdown", "text"], default: "markdown",
#               description: "markdown: a # heading; text: the title underlined" },
#     tag: { type: "string", description: "A tag to file the note under (none when left out)", max: 30 },
#   },
# }
#
# The arguments arrive as env vars named after the inputs ($title, $body, $format and
# $tag, which is unset when left out), and as one JSON object on stdin.
set -euo pipefail

if [ "$format" = "markdown" ]; then
  printf '# %s\n' "$title"
else
  printf '%s\n' "$title"
  printf '%s\n' "$title" | sed 's/./=/g'
fi
if [ -n "$body" ]; then
  printf '\n%s\n' "$body"
fi
if [ -n "${tag+set}" ]; then
  printf '\ntag: %s\n' "$tag"
fi
