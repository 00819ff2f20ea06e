#!/usr/bin/env bash
# Throughput of the fake against a bare net/http handler, with wrk on
# loopback. Every stage of the fake is on: auth, the default rate limit
# (20/s and 72000/h per token), validation and the workflow state; wrk
# rotates over enough tokens that calls are accepted.
#
#   bench/run.sh [duration] [connections] [rounds]     e.g. bench/run.sh 10s 32 3
#
# It measures the embedded document, and the service's published schema
# too when it is found (SPEC, default ../shared/specs/seqera-api-cloud.yaml
# beside the repository; SPEC=none leaves it out). The two documents take
# turns within each round.
#
# On a small shared machine one wrk run can be off by a quarter, so the
# script measures in rounds: in each round every call of the fake is loaded
# right after a bare handler sending the same bytes, and the call's ratio is
# taken against that bare figure. It prints every round, the median of each
# column and the median of each ratio. Each
# round starts a fresh fake, so the runs launched in one round do not
# lengthen the lists of the next.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10s}
conns=${2:-32}
rounds=${3:-3}
threads=2
tokens=${TOKENS:-4000}

if ! command -v wrk >/dev/null; then
  echo "installing wrk" >&2
  (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null
fi

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/wmsmock" ./cmd/wmsmock
go build -o "$work/bare" ./bench/bare

# A profile holding the benchmark's tokens.
{
  echo "tokens:"
  for i in $(seq 1 "$tokens"); do printf '  - {name: bench-%d, value: bench-token-%05d}\n' "$i" "$i"; done
} >"$work/profile.yaml"

cat >"$work/rotate.lua" <<LUA
local n = $tokens
local i = 0
local method, path, body = os.getenv("WRK_METHOD"), os.getenv("WRK_PATH"), os.getenv("WRK_BODY")
request = function()
  i = i % n + 1
  local headers = { ["Authorization"] = string.format("Bearer bench-token-%05d", i) }
  if body and body ~= "" then headers["Content-Type"] = "application/json" end
  return wrk.format(method, path, headers, body ~= "" and body or nil)
end
LUA

wait_for() { # url
  for _ in $(seq 1 100); do
    curl -fs "$1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  exit 1
}

rps() { # url method body
  WRK_METHOD=$2 WRK_PATH=$(echo "$1" | sed -E 's#^https?://[^/]+##') WRK_BODY=$3 \
    wrk -t"$threads" -c"$conns" -d"$duration" -s "$work/rotate.lua" "$1" | awk '/Requests\/sec/ {print $2}'
}

fake=127.0.0.1:18080
list="/api/workflow?max=20"
describe="/api/workflow/3cSucceeded003"
launch='{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}'

docs=(embedded)
spec=${SPEC:-../shared/specs/seqera-api-cloud.yaml}
if [ "$spec" != none ] && [ -f "$spec" ]; then docs+=(published); fi

start_fake() { # doc
  local flags=()
  if [ "$1" = published ]; then flags=(--spec "$spec"); fi
  "$work/wmsmock" serve --addr "$fake" --profile "$work/profile.yaml" --log-level warn "${flags[@]}" >>"$work/fake.log" 2>&1 &
  fake_pid=$!
  wait_for "http://$fake/_mock/health"
  # Warm the operations (first use compiles their schemas).
  for p in "$list" "$describe"; do
    curl -fs -H 'Authorization: Bearer wmsmock-dev-token' "http://$fake$p" >/dev/null
  done
  curl -fs -H 'Authorization: Bearer wmsmock-dev-token' -H 'Content-Type: application/json' -d "$launch" "http://$fake/api/workflow/launch" >/dev/null
}

# Each call is measured against a bare handler that sends exactly the bytes
# the fake sends for it on that document (captured once), so the ratio is
# the cost of the fake's pipeline and not of the answer's size.
auth=(-H 'Authorization: Bearer wmsmock-dev-token')
port=18081
declare -A bare
for doc in "${docs[@]}"; do
  start_fake "$doc"
  curl -fs "${auth[@]}" "http://$fake$list" >"$work/$doc-list.json"
  curl -fs "${auth[@]}" "http://$fake$describe" >"$work/$doc-describe.json"
  curl -fs "${auth[@]}" -H 'Content-Type: application/json' -d "$launch" "http://$fake/api/workflow/launch" >"$work/$doc-launch.json"
  kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
  for call in list describe launch; do
    "$work/bare" --addr "127.0.0.1:$port" --body "$work/$doc-$call.json" &
    wait_for "http://127.0.0.1:$port/"
    bare[$doc-$call]="http://127.0.0.1:$port/"
    port=$((port + 1))
  done
done

row() { awk '{ printf "%-18s %6.0f %6.0f %3.0f%% %6.0f %6.0f %3.0f%% %6.0f %6.0f %3.0f%%\n", $1, $2, $3, 100*$3/$2, $4, $5, 100*$5/$4, $6, $7, 100*$7/$6 }'; }
printf '%-18s %18s %18s %18s   (req/s: bare, fake, fake/bare)\n' round list describe launch
for doc in "${docs[@]}"; do
  printf '%-18s %18s %18s %18s   (bytes)\n' "$doc" "$(wc -c <"$work/$doc-list.json")B" "$(wc -c <"$work/$doc-describe.json")B" "$(wc -c <"$work/$doc-launch.json")B"
  : >"$work/$doc-rows"
done
for r in $(seq 1 "$rounds"); do
  for doc in "${docs[@]}"; do
    start_fake "$doc"
    bl=$(rps "${bare[$doc-list]}" GET "")
    l=$(rps "http://$fake$list" GET "")
    bd=$(rps "${bare[$doc-describe]}" GET "")
    d=$(rps "http://$fake$describe" GET "")
    bp=$(rps "${bare[$doc-launch]}" POST "$launch")
    p=$(rps "http://$fake/api/workflow/launch" POST "$launch")
    kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
    echo "$bl $l $bd $d $bp $p" >>"$work/$doc-rows"
    row <<<"$r/$doc $bl $l $bd $d $bp $p"
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$work/$1-rows" | median; }
ratio() { awk -v f="$2" -v b="$3" '{ print 100 * $f / $b }' "$work/$1-rows" | median; }
for doc in "${docs[@]}"; do
  row <<<"median/$doc $(col "$doc" 1) $(col "$doc" 2) $(col "$doc" 3) $(col "$doc" 4) $(col "$doc" 5) $(col "$doc" 6)"
done
for doc in "${docs[@]}"; do
  printf '%s: median of the per-round ratios: list %.0f%%, describe %.0f%%, launch %.0f%%\n' "$doc" \
    "$(ratio "$doc" 2 1)" "$(ratio "$doc" 4 3)" "$(ratio "$doc" 6 5)"
done
# A figure is only worth its calls' answers: show any the fake logged as
# failed (4xx/5xx), not just that some were.
if grep -q 'status=[45]' "$work/fake.log"; then
  echo "the fake answered some calls with an error (its log):"
  grep 'status=[45]' "$work/fake.log" | sed -E 's/time=[^ ]+ //' | cut -c1-300 | sort | uniq -c | sort -rn | head -10
fi
