#!/bin/bash
# Tool: test_image_content
# Description: Tests image content response
# A JSON object with a `content` array on stdout is the result itself; an image item
# may name a file instead of carrying base64 data, in the folders its workspace_config
# allows (config/tools/test_image_content.json: ../media).
echo '{"content": [{"type": "image", "path": "red-pixel.png"}]}'
