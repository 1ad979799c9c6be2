# Hindsight in a container: `docker compose up` (see docker-compose.yml), or
#   docker build -t hindsight . && docker run -e DATABASE_URL=postgresql://… -p 3000:3000 hindsight

# ---- build: every dependency, the type-checked compile, and dist/ made self-contained -------
FROM node:20.20-bookworm-slim AS build
WORKDIR /app
# The lock file and what `postinstall` needs (it generates the Prisma client) first, so the
# dependency layer is reused until they change.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- runtime: production dependencies and dist/ only, as an unprivileged user ---------------
FROM node:20.20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    SEED_ON_START=true
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the only one is ours (Prisma client generation), and the generated client
# is already compiled into dist/. --omit=optional leaves out the Prisma CLI (an optional peer of
# @prisma/client) and the embedded Postgres binaries: the image needs DATABASE_URL.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1's only process and receives SIGTERM itself, so it drains and exits.
CMD ["node", "dist/apps/api/src/main.js"]
