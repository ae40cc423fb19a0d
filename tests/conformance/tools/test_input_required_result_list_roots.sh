#!/bin/bash
# Tool: test_input_required_result_list_roots
# Description: Lists the client's roots
read -r arguments
echo 'INPUT {"client_roots": {"method": "roots/list", "params": {}}}' >&2
read -r answer
echo "Client roots: $(jq -c '[.client_roots.roots[]? | .uri]' <<<"$answer")"
