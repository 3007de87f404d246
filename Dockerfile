# syntax=docker/dockerfile:1
# Node 24, the active LTS (22, in maintenance, is tested too; 22.14 is the
# oldest that better-sqlite3 13 runs on).
ARG NODE_VERSION=24

# Build stage: the package, packed as `npm pack` packs it anywhere, then
# installed from its tarball with production dependencies only, as a user
# installs it. better-sqlite3's addon (Node-API) is a file of its npm package:
# nothing is compiled or downloaded from elsewhere.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# .dockerignore lets in only the sources, the example config, README and LICENSE.
COPY . .
# prepack builds dist/ from nothing; the tarball is the artifact test/package/pack.test.ts installs and runs.
RUN mkdir /pkg && npm pack --pack-destination /pkg \
 && npm install --global --prefix /opt/ivsync --omit=dev --prefer-offline --no-audit --no-fund /pkg/ivsync-*.tgz

# Runtime stage: that installation alone (the package and its production
# dependencies; no sources, no compilers), non-root, data on a volume.
FROM node:${NODE_VERSION}-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc gives each thread that allocates its own arena and
# keeps what was freed in each. DuckDB's work runs on Node's worker threads, so
# a DuckDB target or an export held about 40 MB more than it used (a 1M-session
# DuckDB backfill peaked at 410 MB without the cap, 371 MB with it). glibc reads
# the variable when the process starts, so it is set here, not by the program.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    PATH=/opt/ivsync/bin:$PATH \
    IVS_DB=sqlite:/data/ivsync.sqlite
COPY --from=build /opt/ivsync /opt/ivsync
# The working directory holds the default config file, ./config/ivsync.json: mount yours there.
WORKDIR /app
RUN mkdir -p /app/config /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# The daemon stops on SIGTERM within 10 s (docker stop's default grace period):
# it commits the pages in flight and gives its leases back.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["ivsync"]
# 0.0.0.0: /metrics and the webhook receiver must be reachable from outside the container.
# Beyond loopback the daemon needs IVS_UI_TOKEN (docker run -e IVS_UI_TOKEN=...): every route
# but /healthz and /webhooks asks for it as a bearer token, and without it the daemon does not start.
CMD ["daemon", "--port", "8080", "--host", "0.0.0.0"]
