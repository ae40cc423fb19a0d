"""A `<script>.json` sidecar beside a script (mcp-bash style), and how its program starts."""
