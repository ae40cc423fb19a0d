"""What the server offers and tells of it: list_changed, hot reload, prompts, resources,
completion and the search mode. Imports the core of serve/, never a transport or replicas/."""
