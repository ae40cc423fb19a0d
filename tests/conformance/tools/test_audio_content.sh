#!/bin/bash
# Tool: test_audio_content
# Description: Tests audio content response
echo '{"content": [{"type": "audio", "path": "beep.wav", "mimeType": "audio/wav"}]}'
