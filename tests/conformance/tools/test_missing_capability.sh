#!/bin/bash
# Tool: test_missing_capability
# Description: Needs the model to go on: a client that cannot sample gets a missing-capability error
read -r arguments
echo 'SAMPLE {"messages": [{"role": "user", "content": {"type": "text", "text": "Summarise"}}], "maxTokens": 50}' >&2
read -r answer
echo "Answer: $answer"
