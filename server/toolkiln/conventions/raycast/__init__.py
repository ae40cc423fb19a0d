"""Raycast script commands: `# @raycast.*` headers, positional arguments."""
