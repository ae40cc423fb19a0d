"""Serving over Streamable HTTP: the app, who may talk to it, connections, resumable streams,
the drain and OAuth (auth/). Imports the core, dashboard/ and, only when a state URL is set, replicas/."""
