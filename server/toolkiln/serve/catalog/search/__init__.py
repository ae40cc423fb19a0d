"""Search mode for big catalogs (docs/operations.md "Big catalogs")."""

from __future__ import annotations

from toolkiln.serve.catalog.search.mode import CallOf, CatalogSearch, Refusal

__all__ = ["CallOf", "CatalogSearch", "Refusal"]
