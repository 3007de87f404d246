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
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
RUN ln -s /app/dist/src/cli/main.js /usr/local/bin/ivsync && chmod +x /app/dist/src/cli/main.js \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.IVS_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["ivsync"]
CMD ["daemon", "--port", "8080"]
