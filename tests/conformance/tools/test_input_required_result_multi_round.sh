#!/bin/bash
# Tool: test_input_required_result_multi_round
# Description: Asks two questions, one after the other, from one running script
read -r arguments
echo 'INPUT {"step1": {"method": "elicitation/create", "params": {"message": "Step 1: What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}' >&2
read -r first
echo 'INPUT {"step2": {"method": "elicitation/create", "params": {"message": "Step 2: What is your favorite color?", "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}}}}' >&2
read -r second
echo "$(jq -r '.step1.content.name' <<<"$first") likes $(jq -r '.step2.content.color' <<<"$second")"
