#!/usr/bin/env bash
# Seqera's Node-RED nodes against the fake, outside CI: start the fake, then
# run flows of the nodes, unmodified (scripts/node-red/flows.js, with
# node-red-node-test-helper): launch a pipeline and monitor it to
# completion, search a data link and browse all of it, create a dataset,
# upload a file and download the same bytes, start a studio and stop it.
# It prints PASS, or each flow that failed and why, and exits non-zero
# when one did.
#
#   scripts/node-red.sh              # uses the published schema in ../shared/specs
#   SPEC=path/to/openapi.yaml PORT=18090 scripts/node-red.sh
#
# The nodes come from their public repository, NODES_REPO (by default the
# bare mirror in /work/.mirror, else GitHub's seqeralabs/node-red-seqera),
# at NODES_REF; their own dependencies (axios, form-data), node-red and
# node-red-node-test-helper from the npm registry. Everything is installed
# once under CACHE (default $HOME/.cache/wmsmock-node-red); delete it to
# reinstall.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

CACHE=${CACHE:-$HOME/.cache/wmsmock-node-red}
NODES_REPO=${NODES_REPO:-/work/.mirror/seqeralabs+node-red-seqera/repo}
[ -d "$NODES_REPO" ] || NODES_REPO=https://github.com/seqeralabs/node-red-seqera
NODES_REF=${NODES_REF:-HEAD}
NODE_RED_VERSION=${NODE_RED_VERSION:-3}
HELPER_VERSION=${HELPER_VERSION:-0.3.6}
PORT=${PORT:-18090}
SPEC=${SPEC:-$repo/../shared/specs/seqera-api-cloud.yaml}
TOKEN=wmsmock-dev-token # the fake's development token (mock/auth)

say() { printf '== %s\n' "$*"; }
mkdir -p "$CACHE"

stamp="$NODES_REPO@$NODES_REF node-red@$NODE_RED_VERSION helper@$HELPER_VERSION"
if [ "$(cat "$CACHE/installed" 2>/dev/null)" != "$stamp" ]; then
  say "installing the nodes, node-red and node-red-node-test-helper (once; cached in $CACHE)"
  rm -rf "$CACHE/run" && mkdir -p "$CACHE/run"
  (
    cd "$CACHE/run"
    npm init -y >/dev/null
    if [ -d "$NODES_REPO" ]; then
      # The nodes and their package file only (a mirror may lack the images).
      for f in $(git --git-dir="$NODES_REPO" ls-tree -r --name-only "$NODES_REF" -- package.json nodes LICENSE); do
        mkdir -p "nodes-src/$(dirname "$f")" && git --git-dir="$NODES_REPO" show "$NODES_REF:$f" >"nodes-src/$f"
      done
    else
      git clone -q "$NODES_REPO" nodes-src && git -C nodes-src checkout -q "$NODES_REF"
    fi
    (cd nodes-src && npm install --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
    npm install --no-audit --no-fund --loglevel=error "node-red@$NODE_RED_VERSION" "node-red-node-test-helper@$HELPER_VERSION" axios >/dev/null
  )
  echo "$stamp" >"$CACHE/installed"
fi
nodes=$CACHE/run/nodes-src

work=$(mktemp -d)
say "starting the fake on 127.0.0.1:$PORT ($SPEC)"
go build -o "$work/wmsmock" ./cmd/wmsmock
"$work/wmsmock" serve --addr "127.0.0.1:$PORT" --spec "$SPEC" --log-level debug >"$work/fake.log" 2>&1 &
fake=$!
# The fake's log of the last run, with every request, is kept in
# $CACHE/last-run.
trap 'kill $fake 2>/dev/null || true; rm -rf "$CACHE/last-run"; mkdir -p "$CACHE/last-run"; cp "$work"/*.log "$CACHE/last-run/" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$PORT/_mock/health" >/dev/null 2>&1 && break
  sleep 0.2
done

say "running the flows"
cp scripts/node-red/flows.js "$CACHE/run/"
(cd "$CACHE/run" && BASE_URL="http://127.0.0.1:$PORT/api" TOKEN=$TOKEN NODES_DIR=$nodes node flows.js)
