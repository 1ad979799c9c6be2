#!/bin/bash
# Incident list page timings at scale, two running apps on the same database, alternating
# (B then A per URL, three rounds after one warm-up pass): A is this checkout's app, B another
# commit's. Each app started with, e.g.:
#   PORT=3917 DATABASE_URL=postgresql://…/hindsight_scale node scripts/start.js   # this checkout
#   PORT=3918 DATABASE_URL=postgresql://…/hindsight_scale node scripts/start.js   # the other
#   bench/list-page-bench.sh http://127.0.0.1:3917 http://127.0.0.1:3918
# Bounded: 6 URLs × 4 passes × 2 apps, loopback only; curl's time_total in seconds.
set -euo pipefail
this=${1:?usage: bench/list-page-bench.sh <this app URL> <baseline app URL>}
base=${2:?usage: bench/list-page-bench.sh <this app URL> <baseline app URL>}
urls=("/incidents?q=requests" "/incidents?q=nothing" "/incidents?q=%22partial+outage+after%22" "/incidents?organization=a" "/incidents?pattern=feedback-loop" "/incidents?q=reqeusts")
for u in "${urls[@]}"; do curl -s -m 60 -o /dev/null "$this$u"; curl -s -m 60 -o /dev/null "$base$u"; done
for round in 1 2 3; do
  for u in "${urls[@]}"; do
    b=$(curl -s -m 60 -o /dev/null -w "%{http_code} %{time_total}" "$base$u")
    a=$(curl -s -m 60 -o /dev/null -w "%{http_code} %{time_total}" "$this$u")
    echo "$round | $u | baseline $b | this $a"
  done
done
