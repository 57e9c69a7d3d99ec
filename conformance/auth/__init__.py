"""Authentication: credentials placed from the contract's security schemes, and one OAuth 2.0 client."""

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, INVALID_CREDENTIAL, NONE, AuthAs, apply_auth, auth_as

__all__ = ["AUTH_AS_SCHEMA", "DEFAULT", "INVALID_CREDENTIAL", "NONE", "AuthAs", "apply_auth", "auth_as"]
