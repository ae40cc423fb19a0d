#!/bin/bash
# Tool: test_reconnection
# Description: Takes a moment; its events are numbered so a client whose stream drops can resume it
echo "PROGRESS 1/2 working" >&2
sleep 0.2
echo "PROGRESS 2/2 done" >&2
echo "Reconnection test completed"
