#!/bin/bash
# Tool: test_elicitation_sep1330_enums
# Description: Tests elicitation with enum schema improvements (SEP-1330)
read -r arguments
echo 'ELICIT {"message": "Please select options from the enum fields", "requestedSchema": {"type": "object", "properties": {
  "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
  "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
    {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]},
  "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
  "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
  "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
    {"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]}}}}}' | tr -d '\n' >&2
echo >&2
read -r answer
echo "Elicitation completed: $answer"
