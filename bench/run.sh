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
# taken against that bare figure. Writes have a second floor: a bare
# handler that also decodes each body as JSON and keeps it under a new id
# (bench/bare --keep), the least a stateful server does. The writes are a
# launch and Nextflow's progress report of 100 running tasks (PUT
# /trace/{id}/progress, about 67 KB, to a run the round created), whose
# figure is also given in tasks per second. It prints every round, the median of each
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
tasks=100
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
  # A run Nextflow reports, begun, for the progress calls.
  local run
  run=$(curl -fs -H 'Authorization: Bearer wmsmock-dev-token' -H 'Content-Type: application/json' \
    -d '{"runName":"bench","sessionId":"s","projectName":"p"}' "http://$fake/api/trace/create" | sed -E 's/.*"workflowId":"([^"]+)".*/\1/')
  curl -fs -X PUT -H 'Authorization: Bearer wmsmock-dev-token' -H 'Content-Type: application/json' \
    -d '{"processNames":["ALIGN"],"workflow":{"runName":"bench","projectName":"p","sessionId":"s","commandLine":"nextflow run p","userName":"u","workDir":"/work","submit":"2026-03-01T12:00:00Z"}}' \
    "http://$fake/api/trace/$run/begin" >/dev/null
  progress_path=/api/trace/$run/progress
  curl -fs -X PUT -H 'Authorization: Bearer wmsmock-dev-token' -H 'Content-Type: application/json' -d "$progress" "http://$fake$progress_path" >/dev/null
}

# Nextflow's progress report: $tasks running tasks, as its client writes
# them (mock/trace_bench_test.go's progressBody).
progress=$(awk -v n="$tasks" 'BEGIN {
  printf "{\"tasks\":["
  for (id = 1; id <= n; id++) {
    if (id > 1) printf ","
    printf "{\"taskId\":%d,\"status\":\"RUNNING\",\"hash\":\"ab/%06x\",\"name\":\"ALIGN (%d)\",\"process\":\"ALIGN\",\"tag\":\"sample_%d\",", id, id, id, id
    printf "\"submit\":\"2026-03-01T12:00:00Z\",\"workdir\":\"/work/ab/%06x\",\"cpus\":2,\"memory\":4294967296,\"attempt\":1,", id
    printf "\"nativeId\":\"%d\",\"executor\":\"local\",\"realtime\":1500,\"pcpu\":97.5,\"peakRss\":104857600,\"rchar\":2048,\"wchar\":1024}", 40000 + id
  }
  printf "],\"progress\":{\"running\":%d},\"containers\":[]}", n
}')

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
  curl -fs -X PUT "${auth[@]}" -H 'Content-Type: application/json' -d "$progress" "http://$fake$progress_path" >"$work/$doc-progress.json"
  kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
  for call in list describe launch keep:launch keep:progress; do
    flags=()
    if [[ $call == keep:* ]]; then flags=(--keep); fi
    "$work/bare" --addr "127.0.0.1:$port" --body "$work/$doc-${call#keep:}.json" "${flags[@]}" &
    wait_for "http://127.0.0.1:$port/"
    bare[$doc-$call]="http://127.0.0.1:$port/"
    port=$((port + 1))
  done
done

row() { awk '{ printf "%-18s %6.0f %6.0f %3.0f%% %6.0f %6.0f %3.0f%% %6.0f %6.0f %3.0f%% %6.0f %3.0f%% %6.0f %6.0f %3.0f%%\n", $1, $2, $3, 100*$3/$2, $4, $5, 100*$5/$4, $6, $7, 100*$7/$6, $8, 100*$7/$8, $9, $10, 100*$10/$9 }'; }
printf '%-18s %18s %18s %18s %11s %18s   (req/s: floor, fake, fake/floor)\n' round list describe launch "launch/keep" "progress/keep"
for doc in "${docs[@]}"; do
  printf '%-18s %18s %18s %18s %11s %18s   (bytes)\n' "$doc" "$(wc -c <"$work/$doc-list.json")B" "$(wc -c <"$work/$doc-describe.json")B" "$(wc -c <"$work/$doc-launch.json")B" "" "${#progress}B in"
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
    kp=$(rps "${bare[$doc-keep:launch]}" POST "$launch")
    kt=$(rps "${bare[$doc-keep:progress]}" PUT "$progress")
    t=$(rps "http://$fake$progress_path" PUT "$progress")
    kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
    echo "$bl $l $bd $d $bp $p $kp $kt $t" >>"$work/$doc-rows"
    row <<<"$r/$doc $bl $l $bd $d $bp $p $kp $kt $t"
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$work/$1-rows" | median; }
ratio() { awk -v f="$2" -v b="$3" '{ print 100 * $f / $b }' "$work/$1-rows" | median; }
for doc in "${docs[@]}"; do
  row <<<"median/$doc $(col "$doc" 1) $(col "$doc" 2) $(col "$doc" 3) $(col "$doc" 4) $(col "$doc" 5) $(col "$doc" 6) $(col "$doc" 7) $(col "$doc" 8) $(col "$doc" 9)"
done
for doc in "${docs[@]}"; do
  printf '%s: median of the per-round ratios: list %.0f%%, describe %.0f%% (of the same bytes); launch %.0f%% of the same bytes, %.0f%% of the write floor; progress %.0f%% of the write floor (%.0f tasks/s)\n' "$doc" \
    "$(ratio "$doc" 2 1)" "$(ratio "$doc" 4 3)" "$(ratio "$doc" 6 5)" "$(ratio "$doc" 6 7)" "$(ratio "$doc" 9 8)" "$(echo "$(col "$doc" 9) * $tasks" | bc)"
done
# A figure is only worth its calls' answers: show any the fake logged as
# failed (4xx/5xx), not just that some were.
if grep -q 'status=[45]' "$work/fake.log"; then
  echo "the fake answered some calls with an error (its log):"
  grep 'status=[45]' "$work/fake.log" | sed -E 's/time=[^ ]+ //' | cut -c1-300 | sort | uniq -c | sort -rn | head -10
fi
