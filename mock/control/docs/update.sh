#!/usr/bin/env bash
# Refreshes the reference page's viewer (swagger-ui-dist) from the npm
# registry. The files are committed gzipped and embedded in the binary, so
# the page needs no network at run time; only what the page loads is kept.
#   bash mock/control/docs/update.sh          # the pinned version
#   VERSION=5.x.y bash mock/control/docs/update.sh
set -euo pipefail
VERSION="${VERSION:-5.35.0}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "swagger-ui-dist@${VERSION}" >/dev/null && tar xzf swagger-ui-dist-*.tgz)
pkg="$work/package"
out="$here/assets"
rm -rf "$out" && mkdir -p "$out"
# gzip -n: no name or time stamp, so the same version gives the same bytes.
for f in swagger-ui-bundle.js swagger-ui.css; do
  gzip -9 -n -c "$pkg/$f" > "$out/$f.gz"
done
cp "$pkg/LICENSE" "$out/LICENSE"
cp "$pkg/NOTICE" "$out/NOTICE"
cp "$pkg/swagger-ui-bundle.js.LICENSE.txt" "$out/swagger-ui-bundle.js.LICENSE.txt"
echo "$VERSION" > "$out/VERSION"
echo "swagger-ui-dist $VERSION:"
ls -l "$out"
