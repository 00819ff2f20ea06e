#!/usr/bin/env bash
# The service's own Go client against injected faults, outside CI: the
# Terraform provider's generated SDK (internal/sdk of
# github.com/seqeralabs/terraform-provider-seqera) calls ListWorkflows on
# `wmsmock serve` while the fake answers three 503s, resets two connections
# and sends one empty reply. With the SDK's default retry settings the call
# must succeed once the burst ends; with retries off it must fail on the
# first 503. It prints each check and exits non-zero on a failed one.
#
#   scripts/faults-sdk.sh
#   PORT=18090 PROVIDER_REPO=path/or/url scripts/faults-sdk.sh
#
# The SDK is internal to the provider's module, so the program
# (scripts/faults-sdk/main.go) is copied into a clone of that module and
# built there; the clone and the binary are cached under CACHE (default
# $HOME/.cache/wmsmock-tofu, shared with scripts/tofu-drift.sh); delete it
# to rebuild. The only download is the SDK's one dependency (gojq) from the
# Go module proxy, the first time. The run takes about 15 seconds: the
# SDK's own waits between attempts (500ms, growing by 1.5 powers).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

CACHE=${CACHE:-$HOME/.cache/wmsmock-tofu}
PROVIDER_REPO=${PROVIDER_REPO:-/work/.mirror/seqeralabs+terraform-provider-seqera/repo}
[ -d "$PROVIDER_REPO" ] || PROVIDER_REPO=https://github.com/seqeralabs/terraform-provider-seqera
PORT=${PORT:-18090}

say() { printf '== %s\n' "$*"; }
mkdir -p "$CACHE/bin"

src=$CACHE/src-provider
if [ ! -d "$src" ]; then
  say "cloning the provider from $PROVIDER_REPO (once; cached in $CACHE)"
  git clone -q "$PROVIDER_REPO" "$src"
fi
say "building the SDK program inside the provider's module ($(git -C "$src" log -1 --format='%h %cs'))"
mkdir -p "$src/cmd/wmsmock-faults-sdk"
grep -v '^//go:build ignore$' scripts/faults-sdk/main.go >"$src/cmd/wmsmock-faults-sdk/main.go"
(cd "$src" && nice -n 15 go build -o "$CACHE/bin/wmsmock-faults-sdk" ./cmd/wmsmock-faults-sdk)

work=$(mktemp -d)
say "starting the fake on 127.0.0.1:$PORT"
go build -o "$work/wmsmock" ./cmd/wmsmock
"$work/wmsmock" serve --addr "127.0.0.1:$PORT" --log-level info >"$work/fake.log" 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null || true; mkdir -p "$CACHE/last-faults-run"; cp "$work/fake.log" "$CACHE/last-faults-run/" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  curl -fsS -o /dev/null "http://127.0.0.1:$PORT/_mock/health" 2>/dev/null && break
  kill -0 $fake 2>/dev/null || { cat "$work/fake.log"; exit 1; }
  sleep 0.2
done

say "the SDK against the burst"
if "$CACHE/bin/wmsmock-faults-sdk" -root "http://127.0.0.1:$PORT"; then
  say "PASS: the SDK outlasts the burst with its default retries and fails on it without"
else
  say "FAIL (the fake's log: $CACHE/last-faults-run/fake.log)"; exit 1
fi
