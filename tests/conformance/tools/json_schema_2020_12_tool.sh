#!/bin/bash
# help-json: `--help` prints the metadata, here with a whole JSON Schema as `input_schema`
# for what plain options cannot say ($defs with an $anchor, allOf/anyOf, if/then/else).
if [ "$1" = "--help" ]; then
  cat <<'JSON'
{"description": "Tool with JSON Schema 2020-12 features",
 "input_schema": {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
 }}
JSON
  echo '{}' >&2
  exit 0
fi
echo "Contact ${name:-someone} by ${contactMethod:-email}"
