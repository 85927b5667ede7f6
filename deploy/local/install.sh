#!/usr/bin/env bash
# Installs the workspace's packages (when the lockfile or a manifest changed since the last
# install) and generates the ts-proto and Prisma code. Idempotent and quick when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
stamp=node_modules/.tidemark-install
if [ ! -f "$stamp" ] || [ -n "$(find pnpm-lock.yaml package.json pnpm-workspace.yaml patches libs/*/package.json services/*/package.json deploy/local/package.json test/package.json -newer "$stamp" 2>/dev/null | head -1)" ]; then
  echo "installing packages…" >&2
  CI=true pnpm install --frozen-lockfile --reporter=append-only >&2
  touch "$stamp"
fi
pnpm --silent gen >/dev/null
