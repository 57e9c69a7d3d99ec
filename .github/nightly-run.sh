#!/usr/bin/env bash
# One service against its sandbox (the nightly workflow's run step): conformance.toml's target
# `sandbox`. The step maps the names the file refers to for this service (its secrets and
# variables) explicitly; nothing else reaches this script.
set -euo pipefail
SERVICE=$1
bash scripts/setup
# Empty when the file's base_url for the service refers to a variable the repository does not set.
url=$(.venv/bin/conformance env --target-name sandbox --service "$SERVICE" --get "CONFORMANCE_${SERVICE^^}_BASE_URL")
if [ -z "$url" ]; then
  echo "no sandbox configured for $SERVICE (set the repository variable conformance.toml refers to for its base_url)"
  exit 0
fi
# Its own run directory (shard/<service>), uploaded for the merge job.
.venv/bin/conformance run --target-name sandbox --service "$SERVICE" --report-dir "shard/$SERVICE"
