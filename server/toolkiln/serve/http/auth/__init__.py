"""toolkiln as an OAuth 2.1 resource server (the MCP authorization specification):
config/server.json `oauth` (model/oauth.py) turned into the check of `/mcp` and `/rpc`.

- keys.py: the issuer's JWKS, kept and fetched again on an unknown key.
- jwt_tokens.py / introspect.py: an access token checked, as a JWT or by asking the issuer.
- metadata.py: the Protected Resource Metadata, the challenges, the issuer's metadata.
- gate.py: the check itself, in front of the routes (called by serve/http/guard.py).
- principal.py: who called, and with which scopes, for the handlers (no I/O imports).
- setup.py: all of it made from the settings (imported only when `oauth` is set).
"""
