"""`make bench`: toolkiln against the floor and the reference, in one run (issue 6)."""
