#!/bin/bash
# Tool: failing_job
# Description: Fails after a second; runs only as a task
sleep 1
echo "ERROR the job failed, as it always does" >&2
exit 1
