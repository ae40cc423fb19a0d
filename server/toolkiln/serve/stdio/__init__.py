"""Serving over stdio: the transport, its backpressure and the early handshake.
Imports the core of serve/; never http/ or replicas/."""
