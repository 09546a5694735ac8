# hookgate's container image: the static binary on a distroless base, run as
# a user without privileges.
#
#   docker build -t hookgate:dev --build-arg HOOKGATE_VERSION=$(git describe --tags --always) .
#   docker run -p 8787:8787 -v hookgate-data:/data -v $PWD/configs:/etc/hookgate:ro hookgate:dev
#
# The binary is built by scripts/build-static.sh, the script the deploy
# module's test (deploy/image_test.go) runs and checks: a static ELF (no
# interpreter, no dynamic section) that answers --help and validates the
# demo configuration. Keep the build in that script, not here.

# GO_VERSION follows the go line of go.mod (the test checks it).
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so that a change of source reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG HOOKGATE_VERSION=dev
RUN HOOKGATE_VERSION=${HOOKGATE_VERSION} sh scripts/build-static.sh /out/hookgate
# The state folder, owned by the runtime user: a fresh named volume
# mounted at /data takes this owner and mode.
RUN mkdir -p /out/data && chown 65532:65532 /out/data && chmod 0700 /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/hookgate /usr/local/bin/hookgate
COPY --from=build --chown=65532:65532 /out/data /data
# The SQLite store (store.path: /data/hookgate.db); PostgreSQL needs none.
VOLUME ["/data"]
# The agent listener and the admin listener (/healthz, /readyz, /metrics).
# A configuration for a container binds them on 0.0.0.0 (listen, admin.listen).
EXPOSE 8787 8788
# distroless's nonroot user; numeric, so that runAsNonRoot can check it.
USER 65532:65532
WORKDIR /data
# Without store.path, a configuration's SQLite file goes to the state folder:
# on the volume too.
ENV XDG_STATE_HOME=/data
ENTRYPOINT ["/usr/local/bin/hookgate"]
CMD ["serve", "--config", "/etc/hookgate/hookgate.yaml"]
