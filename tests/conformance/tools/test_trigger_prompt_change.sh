#!/bin/bash
# Tool: test_trigger_prompt_change
# Description: Changes the prompt list (rewrites a generated prompt); under `serve --watch` clients are told
cat > ../prompts/changing_prompt.md <<PROMPT
---
description: Rewritten at $(date +%s.%N) by test_trigger_prompt_change
---
This prompt changes.
PROMPT
echo "prompt list changed"
