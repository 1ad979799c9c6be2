#!/usr/bin/env bash
# Zero-setup smoke run: `npm start` with no DATABASE_URL on a fresh data folder must start an
# embedded Postgres, migrate, seed the four incidents and answer GraphQL; SIGTERM must stop the
# app and the embedded server. Bounded: gives up after 120 s.
set -euo pipefail
cd "$(dirname "$0")/.."

data=$(mktemp -d)
chmod 755 "$data"  # the embedded server runs as `postgres` when we are root
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
log="$data/app.log"
cleanup() { [ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

env -u DATABASE_URL HINDSIGHT_DATA_DIR="$data" PORT="$port" node scripts/start.js >"$log" 2>&1 &
pid=$!
started=$(date +%s)
until curl -sf -m 2 "http://127.0.0.1:$port/health" >/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then cat "$log"; echo "smoke: the app exited before answering"; exit 1; fi
  if [ $(( $(date +%s) - started )) -gt 120 ]; then cat "$log"; echo "smoke: no answer within 120 s"; exit 1; fi
  sleep 0.2
done

query='{"query":"{ incidents(first: 10) { totalCount nodes { slug timeline { asWritten } causalFactors { key leadsTo { to { key } } } actionables { status references { ref } } } } }"}'
answer=$(curl -sf -m 10 "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' -d "$query")
node -e '
  const { data, errors } = JSON.parse(process.argv[1]);
  if (errors) { console.error(errors); process.exit(1); }
  const { totalCount, nodes } = data.incidents;
  if (totalCount !== 4) { console.error("expected 4 incidents, got", totalCount); process.exit(1); }
  for (const i of nodes) {
    const links = i.causalFactors.reduce((n, f) => n + f.leadsTo.length, 0);
    if (!i.timeline.length || !i.causalFactors.length || !links || !i.actionables.length) { console.error("incomplete incident", i.slug); process.exit(1); }
    console.log(`smoke: ${i.slug}: ${i.timeline.length} timeline entries, ${i.causalFactors.length} factors, ${links} links, ${i.actionables.length} actionables`);
  }
' "$answer"

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then echo "smoke: the app did not stop on SIGTERM"; exit 1; fi
if pgrep -f "$data" >/dev/null; then echo "smoke: the embedded Postgres was left running"; exit 1; fi
pid=
echo "smoke: ok (started, answered, stopped cleanly)"
