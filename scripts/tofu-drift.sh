#!/usr/bin/env bash
# Drift check with the service's own Terraform provider, outside CI: every
# resource kind and data source of the provider, each on a new fake, is
# applied, planned (no change allowed), imported into a fresh state and
# planned again (no change but for write-only secrets), and destroyed. The
# sweep itself is a Go program (scripts/tofu-drift/*.go); this script builds
# what it needs and runs it. See docs/tofu-drift.md.
#
#   SPEC=path/to/seqera-api.yaml scripts/tofu-drift.sh        # every kind
#   SPEC=... KINDS='seqera_*_credential,data.*' scripts/tofu-drift.sh
#   SPEC=... WMSMOCK_BIN=/path/to/wmsmock scripts/tofu-drift.sh -kinds seqera_pipeline
#
# SPEC is the OpenAPI document each fake serves: the service's published
# schema. WMSMOCK_BIN is the fake to check; without it the fake is built
# from this checkout. Arguments go to the sweep (-h lists them).
#
# Nothing here needs the internet beyond the Go module proxy, and only the
# first time: OpenTofu (a Go module whose go.mod has a `replace`, so it is
# built from a downloaded copy of the module, not with `go install`) and the
# provider (built from its repository: PROVIDER_REPO, by default the bare
# mirror in /work/.mirror, else GitHub) are built once, niced, and cached
# with the module copy under CACHE (default $HOME/.cache/wmsmock-tofu);
# delete that directory to rebuild. `tofu init` then installs the provider
# from a filesystem mirror in the cache, offline, and links it from a plugin
# cache rather than copying it into each kind's directory. The logs of the
# last sweep, one directory per kind, are in $CACHE/last-run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

CACHE=${CACHE:-$HOME/.cache/wmsmock-tofu}
TOFU_VERSION=${TOFU_VERSION:-v1.12.6}
PROVIDER_REPO=${PROVIDER_REPO:-/work/.mirror/seqeralabs+terraform-provider-seqera/repo}
[ -d "$PROVIDER_REPO" ] || PROVIDER_REPO=https://github.com/seqeralabs/terraform-provider-seqera
PROVIDER_VERSION=99.0.0 # the mirror's version for the locally built provider
if [ -z "${SPEC:-}" ] && [ -f "$repo/../shared/specs/seqera-api-cloud.yaml" ]; then
  SPEC=$repo/../shared/specs/seqera-api-cloud.yaml # the development workspace's copy
fi
if [ -z "${SPEC:-}" ]; then
  echo "tofu-drift: set SPEC to the path of the service's published OpenAPI schema" >&2
  exit 2
fi

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
# installs it from there and from nowhere else, through a plugin cache.
target=$(go env GOOS)_$(go env GOARCH)
mirror=$CACHE/mirror
pdir=$mirror/registry.opentofu.org/seqeralabs/seqera/$PROVIDER_VERSION/$target
mkdir -p "$pdir" "$CACHE/plugin-cache"
if ! cmp -s "$CACHE/bin/terraform-provider-seqera" "$pdir/terraform-provider-seqera_v$PROVIDER_VERSION"; then
  cp "$CACHE/bin/terraform-provider-seqera" "$pdir/terraform-provider-seqera_v$PROVIDER_VERSION"
  rm -rf "$CACHE/plugin-cache" && mkdir -p "$CACHE/plugin-cache" # a rebuilt provider, same version
fi
cat >"$CACHE/tofurc" <<CONF
plugin_cache_dir = "$CACHE/plugin-cache"
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/seqeralabs/seqera"]
  }
}
CONF
export TF_CLI_CONFIG_FILE=$CACHE/tofurc

# The fake: the one given, or this checkout's.
if [ -z "${WMSMOCK_BIN:-}" ]; then
  say "building the fake from $repo"
  nice -n 10 go build -o "$CACHE/bin/wmsmock" ./cmd/wmsmock
  WMSMOCK_BIN=$CACHE/bin/wmsmock
fi

exec go run ./scripts/tofu-drift -tofu "$CACHE/bin/tofu" -wmsmock "$WMSMOCK_BIN" -spec "$SPEC" \
  -logs "$CACHE/last-run" "$@"
