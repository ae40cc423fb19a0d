#!/bin/bash
# Tool: greet
# Description: Greets someone (answers within its call: no task)
# @param name: who to greet (type: string, required: true)
jq -r '"Hello, \(.name)!"'
