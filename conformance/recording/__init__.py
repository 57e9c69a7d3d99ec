"""Cassettes: one per case, scrubbed of every credential before it touches disk."""
