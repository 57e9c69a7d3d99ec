"""The conformance suites: tests of a target (the harness's own tests live in tests/)."""
