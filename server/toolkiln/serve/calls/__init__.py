"""What one call needs besides its process: its record, confirmation, questions, progress,
parking between rounds and sealed request state.
Imports the core of serve/ and tasks/, never a transport or replicas/."""
