# syntax=docker/dockerfile:1
#
# wmsmock: the fake service and its conformance suite in one static binary.
#   docker build -t wmsmock .
#   docker run --rm -p 8080:8080 wmsmock                  # serve on :8080
#   docker run --rm -p 8443:8443 -e WMSMOCK_TLS=true -e WMSMOCK_ADDR=0.0.0.0:8443 \
#     -v "$PWD/tls:/tls" wmsmock                           # HTTPS; trust ./tls/ca.pem
#   docker run --rm wmsmock conform --base-url URL --token T ...

# --- build: a static binary, so the final image needs no libc -------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/wmsmock ./cmd/wmsmock \
 && mkdir -p /out/reports /out/tls

# --- run: distroless, no shell, a non-root user -----------------------------
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wmsmock /usr/local/bin/wmsmock
# Where `conform` writes JUnit and Cucumber reports; owned by the runtime
# user so that a volume mounted here starts out writable.
COPY --from=build --chown=65532:65532 /out/reports /reports
# With WMSMOCK_TLS=true (or serve --tls) the fake serves HTTPS and keeps its
# CA here, so a volume mounted on /tls hands ca.pem to the host and keeps
# the same CA across restarts. Without TLS the directory is unused.
COPY --from=build --chown=65532:65532 /out/tls /tls
ENV WMSMOCK_TLS_DIR=/tls
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/wmsmock"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
