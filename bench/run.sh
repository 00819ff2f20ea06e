#!/usr/bin/env bash
# Throughput of the fake against a bare net/http handler, with wrk on
# loopback. Every stage of the fake is on: auth, the default rate limit
# (20/s and 72000/h per token), validation and synthesis; wrk rotates over
# enough tokens that calls are accepted.
#
#   bench/run.sh [duration] [connections]     e.g. bench/run.sh 10s 32
#
# Prints requests/s for each endpoint and its ratio to the bare handler.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10s}
conns=${2:-32}
threads=2
tokens=${TOKENS:-20000}

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

"$work/wmsmock" serve --addr 127.0.0.1:18080 --profile "$work/profile.yaml" --log-level warn >"$work/fake.log" 2>&1 &
"$work/bare" --addr 127.0.0.1:18081 &
for _ in $(seq 1 100); do
  curl -fs http://127.0.0.1:18080/_mock/health >/dev/null 2>&1 && curl -fs http://127.0.0.1:18081/ >/dev/null 2>&1 && break
  sleep 0.1
done

rps() { # url method body
  WRK_METHOD=$2 WRK_PATH=$(echo "$1" | sed -E 's#^https?://[^/]+##') WRK_BODY=$3 \
    wrk -t"$threads" -c"$conns" -d"$duration" -s "$work/rotate.lua" "$1" | awk '/Requests\/sec/ {print $2}'
}

launch='{"launch":{"computeEnvId":"4cLCtSsDAtUSmBKD9rXyQw","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}'
# Warm the operations (first use compiles their schemas).
for p in "/api/workflow?max=20" "/api/workflow/3cSucceeded003"; do
  curl -fs -H 'Authorization: Bearer wmsmock-dev-token' "http://127.0.0.1:18080$p" >/dev/null
done

bare=$(rps http://127.0.0.1:18081/ GET "")
echo "bare net/http, 1 KB body:       $bare req/s"
# The list answer is far larger than 1 KB; a bare handler sending as many
# bytes shows how much of the gap is the size of the answer alone.
list_size=$(curl -fs -H 'Authorization: Bearer wmsmock-dev-token' "http://127.0.0.1:18080/api/workflow?max=20" | wc -c)
"$work/bare" --addr 127.0.0.1:18082 --size "$list_size" &
for _ in $(seq 1 50); do curl -fs http://127.0.0.1:18082/ >/dev/null 2>&1 && break; sleep 0.1; done
bare_list=$(rps http://127.0.0.1:18082/ GET "")
echo "bare net/http, $list_size B body:  $bare_list req/s   (same size as the list answer)"
for row in "GET /api/workflow?max=20" "GET /api/workflow/3cSucceeded003" "POST /api/workflow/launch"; do
  method=${row%% *}; path=${row#* }
  body=""; [ "$method" = POST ] && body=$launch
  got=$(rps "http://127.0.0.1:18080$path" "$method" "$body")
  printf '%-32s %s req/s  (%.0f%% of bare)\n' "$method $path" "$got" "$(echo "$got $bare" | awk '{print 100*$1/$2}')"
done
if grep -q '" status=4\|status=5' "$work/fake.log"; then echo "fake log:"; tail -5 "$work/fake.log"; fi
