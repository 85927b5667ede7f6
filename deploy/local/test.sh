#!/usr/bin/env bash
# `pnpm test` (or `bash deploy/local/test.sh`): every check CI runs — type check, lint and
# format, then every jest test against real PostgreSQL, Redis, NATS (started here if need be).
# Extra arguments go to jest (a path or -t pattern).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=deploy/local/infra.sh
source deploy/local/infra.sh
tidemark_infra_up
bash deploy/local/install.sh
echo "type check…" >&2
node_modules/.bin/tsc -p tsconfig.json
echo "web app (type check and build)…" >&2
pnpm --silent --filter @tidemark/web build >/dev/null
echo "lint…" >&2
node_modules/.bin/eslint --max-warnings 0 .
node_modules/.bin/prettier --check . >/dev/null || { node_modules/.bin/prettier --check . ; exit 1; }
export OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning ${NODE_OPTIONS:-}" \
  node_modules/.bin/jest --ci "$@"
