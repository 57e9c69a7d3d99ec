"""``conformance proxy``: a team's own traffic forwarded to the upstream unchanged and held to the contract.

One module per concern: ``forward`` (the bounded upstream call), ``operations`` (which documented
operation a request is), ``findings`` (what a check finds and the rule it is attributed to),
``caller`` and ``vendor`` (the two sides of an exchange; ``routes``: the route and media-type
rules, ``accepted``: a mistake the upstream took), ``tally`` (the session's per-rule counts),
``report`` (summary.json and triage.md), ``record`` (cassettes) and ``app`` (the ASGI app).
"""
