# Quire in a container: compiled JavaScript, production dependencies only, run as an unprivileged user.
# docker build -t quire . && docker run -p 8080:8080 quire   (compose.yaml runs the scale-out topology)

# Build: every dependency (TypeScript included), the compiled code, then the dev dependencies pruned.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 ships prebuilt Node-API binaries in its package: no compiler. The `node` development
# dependency (Node 24 for machines with an older one) goes with the other dev dependencies.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Run: node, the pruned node_modules, dist/ and bin/; no compiler, no sources.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/app/data/quire.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains the instance (readyz answers 503 at once, requests in flight are finished).
STOPSIGNAL SIGTERM
CMD ["node", "bin/quire", "serve"]
