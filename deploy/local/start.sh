#!/usr/bin/env bash
# `pnpm start` (or `bash deploy/local/start.sh` before pnpm exists): the whole fleet on this
# machine. Installs what is missing, starts PostgreSQL/Redis/NATS if they are not running,
# migrates, starts every service in one process and prints a working admin key.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=deploy/local/infra.sh
source deploy/local/infra.sh
tidemark_infra_up
bash deploy/local/install.sh
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/tidemark}"
node deploy/local/ensure-database.mjs
pnpm --silent --filter @tidemark/db migrate >/dev/null
# The web application's static files (services/web/dist), served by the fleet's web server.
pnpm --silent --filter @tidemark/web exec vite build --logLevel warn
exec node --import tsx deploy/local/src/main.ts
