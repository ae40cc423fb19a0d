#!/bin/bash
# Tool: test_audio_content
# Description: Tests audio content response
echo '{"content": [{"type": "audio", "path": "../media/beep.wav", "mimeType": "audio/wav"}]}'
