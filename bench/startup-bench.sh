#!/usr/bin/env bash
# Time from `npm start` to the first database-backed GraphQL answer, three ways in one run:
#   fresh    no DATABASE_URL, empty data folder (initdb + migrate + seed)
#   restart  no DATABASE_URL, the same data folder again
#   server   DATABASE_URL pointing at an empty database on an existing server (migrate + seed)
# Usage: bench/startup-bench.sh [rounds] [server-admin-url]. Loopback only; each start is
# stopped with SIGTERM after its first answer. Needs curl.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
admin=${2:-postgresql://postgres@127.0.0.1:5432/test}

first_answer() { # env... -> seconds until the first answer
  local port=$1; shift
  local start end pid
  start=$(date +%s%N)
  env "$@" PORT="$port" node scripts/start.js >/dev/null 2>&1 &
  pid=$!
  until curl -sf -m 2 "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
      -d '{"query":"{ incidents { totalCount } }"}' 2>/dev/null | grep -q '"totalCount":4'; do
    kill -0 "$pid" 2>/dev/null || { echo "start failed" >&2; return 1; }
    sleep 0.05
  done
  end=$(date +%s%N)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  echo "scale=2; ($end - $start) / 1000000000" | bc
}

printf 'round  fresh(s)  restart(s)  server(s)\n'
for r in $(seq 1 "$rounds"); do
  data=$(mktemp -d); chmod 755 "$data"
  port=$((40000 + RANDOM % 20000))
  fresh=$(first_answer "$port" -u DATABASE_URL HINDSIGHT_DATA_DIR="$data")
  restart=$(first_answer "$port" -u DATABASE_URL HINDSIGHT_DATA_DIR="$data")
  rm -rf "$data"
  db="hindsight_startup_$$_$r"
  psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
  server=$(first_answer "$port" DATABASE_URL="${admin%/*}/$db")
  psql "$admin" -qc "DROP DATABASE $db WITH (FORCE)" >/dev/null
  printf '%5s  %8s  %10s  %9s\n' "$r" "$fresh" "$restart" "$server"
done
