#!/bin/bash
# Tool: test_header_param
# Description: Greets someone in a region; the region also travels as an HTTP header for routing
# @param region: Where the request is routed (type: string, required: true, header: Region)
# @param name: Who to greet (type: string, default: "world")
echo "Hello, $name, from $region"
