#!/bin/bash
# Tool: protocol_error_job
# Description: Asks for the client's roots, which the conformance client cannot answer: the task fails
read -r arguments
echo 'ROOTS' >&2
read -r answer
echo "roots: $answer"
