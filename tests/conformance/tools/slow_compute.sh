#!/bin/bash
# Tool: slow_compute
# Description: Sleeps for a while, then answers: a task for a client that can follow one
# @param seconds: how long to work (type: integer, required: false, default: 0)
# @param label: a label echoed in the result (type: string, required: false, default: none)
arguments=$(cat)
seconds=$(jq -r '.seconds' <<<"$arguments")
echo "PROGRESS 0/1 started" >&2
sleep "$seconds"
echo "PROGRESS 1/1 done" >&2
jq -r '"computed \(.label) after \(.seconds) s"' <<<"$arguments"
