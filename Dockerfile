# syntax=docker/dockerfile:1
#
# wmsmock: the fake (wmsmock) and the contract tools (wmsmock-contract,
# which `wmsmock conform` and the other contract commands run) as static
# binaries in a distroless image, running as a non-root user.
#   docker build -t wmsmock .
#   docker run --rm -p 8080:8080 wmsmock                      # serve on :8080
#   docker run --rm --network host wmsmock conform --base-url URL --token T ...
# HTTPS, admin endpoints and the compose file: docs/containers.md.

# --- build: static binaries, so the final image needs no libc -------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not download them again; the
# build cache in a cache mount, so that a source change recompiles only the
# packages it touches (the first build compiles some 420 packages).
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# VERSION names the build in `wmsmock version` (the image has no checkout).
ARG VERSION=""
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=linux go build -trimpath \
      -ldflags="-s -w -X github.com/wmsmock/wmsmock/internal/version.set=${VERSION}" \
      -o /out/ ./cmd/wmsmock ./cmd/wmsmock-contract \
 && mkdir -p /out/reports /out/tls

# --- run: distroless, no shell, a non-root user -----------------------------
FROM gcr.io/distroless/static-debian12:nonroot
# Both binaries side by side: wmsmock runs wmsmock-contract from its own
# directory for conform, calibrate, fidelity, proxy and diff.
COPY --from=build /out/wmsmock /out/wmsmock-contract /usr/local/bin/
# Where `conform` writes JUnit and Cucumber reports; owned by the runtime
# user so that a volume mounted here starts out writable.
COPY --from=build --chown=65532:65532 /out/reports /reports
# With WMSMOCK_TLS=true (or serve --tls) the fake serves HTTPS and keeps its
# CA here, so a volume mounted on /tls hands ca.pem to the host and keeps
# the same CA across restarts. A named volume starts out owned by the
# runtime user; a host directory must be writable by it (docs/containers.md:
# run with --user "$(id -u):$(id -g)"). Without TLS the directory is unused.
COPY --from=build --chown=65532:65532 /out/tls /tls
ENV WMSMOCK_TLS_DIR=/tls
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/wmsmock"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
