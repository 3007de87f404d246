# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and the native SQLite binding.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies only, non-root, data on a volume.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    IVS_DB=sqlite:/data/ivsync.sqlite
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
# The program and its migrations; the benchmarks stay in the build stage.
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/migrations ./dist/migrations
COPY package.json ./
COPY config ./config
RUN ln -s /app/dist/src/cli/main.js /usr/local/bin/ivsync && chmod +x /app/dist/src/cli/main.js \
 && mkdir -p /data && chown node:node /data
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
