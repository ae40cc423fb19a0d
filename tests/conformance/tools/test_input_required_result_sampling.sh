#!/bin/bash
# Tool: test_input_required_result_sampling
# Description: Asks the client's model a question and returns its answer
read -r arguments
echo 'INPUT {"capital_question": {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}], "maxTokens": 100}}}' >&2
read -r answer
echo "The model says: $(jq -r '.capital_question.content.text // .capital_question.error' <<<"$answer")"
