#!/bin/bash
# Tool: test_trigger_tool_change
# Description: Changes the tool list (rewrites a generated tool); under `serve --watch` clients are told
mkdir -p generated
cat > generated/changing_tool.sh <<SCRIPT
#!/bin/bash
# Tool: changing_tool
# Description: Rewritten at $(date +%s.%N) by test_trigger_tool_change
echo changed
SCRIPT
chmod +x generated/changing_tool.sh
echo "tool list changed"
