#!/usr/bin/env bash
# Drift check with the service's own Terraform provider, outside CI: start
# the fake, apply a small configuration (scripts/tofu-drift/main.tf: an
# organization, a workspace, AWS credentials, an AWS Batch compute
# environment with Forge, a label, a pipeline with launch settings, a data
# link, a team, an action), then `tofu plan -detailed-exitcode`, which must
# find no changes, then destroy. It prints a summary and exits non-zero on
# drift or on any failed step.
#
#   scripts/tofu-drift.sh            # uses the published schema in ../shared/specs
#   SPEC=path/to/openapi.yaml PORT=18089 scripts/tofu-drift.sh
#
# Nothing here needs the internet beyond the Go module proxy, and only the
# first time: OpenTofu (a Go module whose go.mod has a `replace`, so it is
# built from a downloaded copy of the module, not with `go install`) and the
# provider (built from its repository: PROVIDER_REPO, by default the bare
# mirror in /work/.mirror, else GitHub) are built once, niced, and cached
# with the module copy under CACHE (default $HOME/.cache/wmsmock-tofu);
# delete that directory to rebuild. `tofu init` then installs the provider
# from a filesystem mirror in the cache, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

CACHE=${CACHE:-$HOME/.cache/wmsmock-tofu}
TOFU_VERSION=${TOFU_VERSION:-v1.12.6}
PROVIDER_REPO=${PROVIDER_REPO:-/work/.mirror/seqeralabs+terraform-provider-seqera/repo}
[ -d "$PROVIDER_REPO" ] || PROVIDER_REPO=https://github.com/seqeralabs/terraform-provider-seqera
PROVIDER_VERSION=99.0.0 # the mirror's version for the locally built provider
PORT=${PORT:-18089}
SPEC=${SPEC:-$repo/../shared/specs/seqera-api-cloud.yaml}
TOKEN=wmsmock-dev-token # the fake's development token (mock/auth)

say() { printf '== %s\n' "$*"; }
mkdir -p "$CACHE/bin"

# OpenTofu, from the module's own copy.
if [ ! -x "$CACHE/bin/tofu" ]; then
  say "building OpenTofu $TOFU_VERSION (once; cached in $CACHE)"
  dir=$(go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$CACHE/src-tofu" && cp -r "$dir" "$CACHE/src-tofu" && chmod -R u+w "$CACHE/src-tofu"
  (cd "$CACHE/src-tofu" && nice -n 15 go build -o "$CACHE/bin/tofu" ./cmd/tofu)
fi

# The provider, from its repository.
if [ ! -x "$CACHE/bin/terraform-provider-seqera" ]; then
  say "building the Seqera provider from $PROVIDER_REPO (once; cached in $CACHE)"
  [ -d "$CACHE/src-provider" ] || git clone -q "$PROVIDER_REPO" "$CACHE/src-provider"
  (cd "$CACHE/src-provider" && nice -n 15 go build -o "$CACHE/bin/terraform-provider-seqera" .)
fi

# A filesystem mirror holding the provider, and a CLI configuration that
# installs it from there and from nowhere else.
target=$(go env GOOS)_$(go env GOARCH)
mirror=$CACHE/mirror
pdir=$mirror/registry.opentofu.org/seqeralabs/seqera/$PROVIDER_VERSION/$target
mkdir -p "$pdir"
cp "$CACHE/bin/terraform-provider-seqera" "$pdir/terraform-provider-seqera_v$PROVIDER_VERSION"
work=$(mktemp -d)
cat >"$work/tofurc" <<CONF
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/seqeralabs/seqera"]
  }
}
CONF
export TF_CLI_CONFIG_FILE=$work/tofurc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
export TF_VAR_server_url=http://127.0.0.1:$PORT/api TF_VAR_token=$TOKEN
cp scripts/tofu-drift/main.tf "$work/"
tofu() { "$CACHE/bin/tofu" -chdir="$work" "$@"; }

say "starting the fake on 127.0.0.1:$PORT ($SPEC)"
go build -o "$work/wmsmock" ./cmd/wmsmock
"$work/wmsmock" serve --addr "127.0.0.1:$PORT" --spec "$SPEC" --log-level debug >"$work/fake.log" 2>&1 &
fake=$!
# The logs of the last run (the fake's, with every request, and each tofu
# step's) are kept in $CACHE/last-run.
trap 'kill $fake 2>/dev/null || true; rm -rf "$CACHE/last-run"; mkdir -p "$CACHE/last-run"; cp "$work"/*.log "$CACHE/last-run/" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/user-info" 2>/dev/null && break
  kill -0 $fake 2>/dev/null || { cat "$work/fake.log"; exit 1; }
  sleep 0.2
done

result=0
say "tofu init (offline, from $mirror)"
tofu init -input=false -no-color >"$work/init.log" || { cat "$work/init.log"; exit 1; }
say "tofu apply"
if ! tofu apply -input=false -auto-approve -no-color >"$work/apply.log" 2>&1; then
  cat "$work/apply.log"; exit 1
fi
grep -E '^Apply complete' "$work/apply.log"
say "tofu plan -detailed-exitcode (no changes expected)"
set +e
tofu plan -input=false -detailed-exitcode -no-color -out="$work/plan" >"$work/plan.log" 2>&1
plan=$?
set -e
case $plan in
0) echo "no changes: every resource reads back as written" ;;
2) result=1
   echo "DRIFT: the plan wants to change what was just applied:"
   tofu show -no-color "$work/plan" | grep -E '^\s*(#|[~+-] |-/\+)' ;;
*) result=1; cat "$work/plan.log" ;;
esac
say "tofu destroy"
if tofu destroy -input=false -auto-approve -no-color >"$work/destroy.log" 2>&1; then
  grep -E '^Destroy complete' "$work/destroy.log"
else
  result=1; tail -30 "$work/destroy.log"
fi
if [ $result = 0 ]; then say "PASS: applied, no drift, destroyed"; else say "FAIL"; fi
exit $result
