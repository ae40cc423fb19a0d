#!/bin/bash
# Tool: test_multiple_content_types
# Description: Tests response with multiple content types (text, image, resource)
cat <<'JSON'
{"content": [
  {"type": "text", "text": "Multiple content types test:"},
  {"type": "image", "path": "red-pixel.png"},
  {"type": "resource", "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}
]}
JSON
