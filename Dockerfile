# clipgate as a container image. Two stages: the build stage has the dev dependencies and compiles
# the service (TypeScript to dist/) and the dashboard (Vite to web/dist); the runtime stage has the
# production dependencies (including the static ffmpeg build npm ships, for HLS/DASH packaging),
# the compiled service, the dashboard and the SQL migrations, and runs as the unprivileged `node`
# user. See docs/operations.md.
#
# It runs with NODE_ENV=production, which does not start without an authentication setting:
# AUTH_JWKS_URL with AUTH_ISSUER and AUTH_AUDIENCE, AUTH_INTROSPECTION_URL, or for development
# tokens AUTH_DEV_SECRET of at least 32 bytes (docs/operations.md, Security).
#
#   docker build -t clipgate .
#   SECRET=$(openssl rand -base64 32)    # keep it: `AUTH_DEV_SECRET=$SECRET npm run token` signs tokens
#   docker run --rm -p 4000:4000 -v clipgate-data:/data -e AUTH_DEV_SECRET="$SECRET" clipgate
ARG NODE_VERSION=26

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY . .
# The install generates the Prisma client (src/generated/prisma), which the build compiles.
RUN npm ci --no-audit --no-fund && npm run build

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the generated client is compiled into dist/, and the dashboard is built.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist dist
COPY --from=build /src/web/dist web/dist
COPY prisma/migrations prisma/migrations
# The embedded database, generated secrets and media live in DATA_DIR unless DATABASE_URL,
# the secrets and MEDIA_S3_BUCKET say otherwise; uploads and packaging use DATA_DIR/tmp always.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
