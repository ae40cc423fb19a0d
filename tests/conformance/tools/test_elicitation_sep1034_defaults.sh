#!/bin/bash
# Tool: test_elicitation_sep1034_defaults
# Description: Tests elicitation with default values for all primitive types (SEP-1034)
read -r arguments
echo 'ELICIT {"message": "Please review and update the form fields with defaults", "requestedSchema": {"type": "object", "properties": {
  "name": {"type": "string", "description": "User name", "default": "John Doe"},
  "age": {"type": "integer", "description": "User age", "default": 30},
  "score": {"type": "number", "description": "User score", "default": 95.5},
  "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
  "verified": {"type": "boolean", "description": "Verification status", "default": true}}}}' | tr -d '\n' >&2
echo >&2
read -r answer
echo "Elicitation completed: $answer"
