#!/usr/bin/env bash
# One service against its sandbox (the nightly workflow's run step). The step maps this service's
# CONFORMANCE_<ID>_* secrets and variables explicitly; nothing else reaches this script.
set -euo pipefail
SERVICE=$1
bash scripts/setup
if [ -z "$(printenv "CONFORMANCE_${SERVICE^^}_BASE_URL")" ]; then
  echo "no sandbox configured for $SERVICE (set the repository variable CONFORMANCE_${SERVICE^^}_BASE_URL)"
  exit 0
fi
# Its own run directory (shard/<service>), uploaded for the merge job.
.venv/bin/conformance run --service "$SERVICE" --report-dir "shard/$SERVICE"
