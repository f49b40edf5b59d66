# Parley's container image (docs/operations.md, *Containers*). Every stage is built on NODE_IMAGE, so a build may
# name another base with `--build-arg NODE_IMAGE=…` (scripts/image-test.sh builds on a local Debian base).
#   docker build -t parley .
#   docker run -p 3000:3000 -v parley-data:/data parley
ARG NODE_IMAGE=node:22-bookworm-slim

# The build: every dependency (esbuild, TypeScript's tooling), then the server's JavaScript, its PGlite template
# and the web account's and widget's bundles.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/sdk/package.json packages/sdk/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
COPY packages/widget/package.json packages/widget/
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN node packages/server/build.mjs && node packages/web/build.mjs && node packages/widget/build.mjs

# Production dependencies only: no TypeScript, no tsx, no esbuild, no test tools.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/sdk/package.json packages/sdk/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
COPY packages/widget/package.json packages/widget/
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# What runs: the built JavaScript, the migrations, the bundles and the production node_modules.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=deps /app/package.json ./
COPY --from=build /src/packages/contracts/package.json packages/contracts/
COPY --from=build /src/packages/contracts/dist packages/contracts/dist
COPY --from=build /src/packages/server/package.json packages/server/
COPY --from=build /src/packages/server/drizzle packages/server/drizzle
COPY --from=build /src/packages/server/dist packages/server/dist
COPY --from=build /src/packages/web/package.json packages/web/
COPY --from=build /src/packages/web/dist packages/web/dist
COPY --from=build /src/packages/widget/package.json packages/widget/
COPY --from=build /src/packages/widget/dist packages/widget/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "packages/server/dist/main.js"]
