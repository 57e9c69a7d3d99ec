"""Thin on purpose: options and fixtures come from the `conformance` pytest plugin
(conformance/plugin.py, registered as a pytest11 entry point)."""
