"""The web dashboard of `serve --http`, at `/`: the tools with their switches, a form to
try each one with its progress and logs live, the latest audit entries, and health.

Server-rendered (jinja2, through `toolkiln.render`) with one small script and no build
step; behind the same token as `/mcp` (a login page sets a session cookie), with a CSRF
token on everything that changes something.
"""

from toolkiln.serve.dashboard.revoked import REVOKED_FILE, Revocations
from toolkiln.serve.dashboard.routes import Dashboard, is_dashboard_path
from toolkiln.serve.dashboard.sessions import Sessions

__all__ = ["REVOKED_FILE", "Dashboard", "Revocations", "Sessions", "is_dashboard_path"]
