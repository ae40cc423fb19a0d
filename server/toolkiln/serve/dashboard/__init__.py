"""The web dashboard of `serve --http`, at `/`: the tools with their switches, a form to
try each one with its progress and logs live, the latest audit entries, and health.

Server-rendered (jinja2, through `toolkiln.render`) with one small script and no build
step; behind the same token as `/mcp` (a login page sets a session cookie), with a CSRF
token on everything that changes something.

Nothing is imported here: the server loads `mount.py` at start and the rest on the
first request to the dashboard.
"""
