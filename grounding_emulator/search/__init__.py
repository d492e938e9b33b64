"""Search: the pure search engine (``engine``), hybrid ranking (``fusion``) and filters."""
