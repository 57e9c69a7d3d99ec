from conformance.cli import entry

entry()
