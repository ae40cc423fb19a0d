#!/bin/bash
# Tool: confirm_delete
# Description: Asks the user to confirm, then pretends to delete the file
# @param filename: the file to delete (type: string, required: true)
read -r arguments
filename=$(jq -r '.filename' <<<"$arguments")
echo "ELICIT {\"message\": \"Delete $filename?\", \"requestedSchema\": {\"type\": \"object\", \"properties\": {\"confirm\": {\"type\": \"boolean\"}}, \"required\": [\"confirm\"]}}" >&2
read -r answer
if [ "$(jq -r '.action' <<<"$answer")" = accept ] && [ "$(jq -r '.content.confirm' <<<"$answer")" = true ]; then
  echo "deleted $filename"
else
  echo "kept $filename"
fi
