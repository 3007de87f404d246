# syntax=docker/dockerfile:1
# Node 22 LTS (supported until April 2027). Not Node 24 yet: better-sqlite3 12
# aborts the process there (README, Known limits); raise this with
# better-sqlite3 13.
ARG NODE_VERSION=22

# Build stage: the package, packed as `npm pack` packs it anywhere, then
# installed from its tarball with production dependencies only, as a user
# installs it. The install runs here, where the compilers are, in case
# better-sqlite3 finds no prebuilt addon for this Node and must build its own.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# .dockerignore lets in only the sources, the example config, README and LICENSE.
COPY . .
# prepack builds dist/ from nothing; the tarball is the artifact test/package/pack.test.ts installs and runs.
# --allow-scripts: npm 12 runs a dependency's install script only when allowed, and
# better-sqlite3's fetches or builds the SQLite addon.
RUN mkdir /pkg && npm pack --pack-destination /pkg \
 && npm install --global --prefix /opt/ivsync --omit=dev --allow-scripts=better-sqlite3 --prefer-offline --no-audit --no-fund /pkg/ivsync-*.tgz

# Runtime stage: that installation alone (the package and its production
# dependencies; no sources, no compilers), non-root, data on a volume.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
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
CMD ["daemon", "--port", "8080", "--host", "0.0.0.0"]
