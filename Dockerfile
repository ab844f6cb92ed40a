# syntax=docker/dockerfile:1
# engage as a container: the built JavaScript (npm run build) run by plain node, as a non-root user.
#
#   docker build -t engage .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db-host:5432/engage engage
#
# Production sets DATABASE_URL (and EVENTSTORE_URL for KurrentDB/EventStoreDB); docker-compose.yml
# wires both. Without DATABASE_URL the embedded Postgres starts inside the container: it works here
# (it runs as the non-root `node` user, and its binaries bring their own libraries), but it is for
# trying engage out only: its data lives in /app/.engage and is gone with the container unless a
# volume is mounted there (-v engage-data:/app/.engage), and the first start prints the first API key.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: all dependencies, TypeScript → dist/, the dashboard → dist/dashboard ---------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json ./client/
COPY dashboard/package.json ./dashboard/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY commands ./commands
COPY projections ./projections
COPY client ./client
COPY dashboard ./dashboard
RUN npm run build

# --- runtime: production dependencies and the built output only ------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# the root's production dependencies only: the workspaces (the typed client, the dashboard's build
# tools) are not needed to run; the built dashboard comes with dist/
RUN npm ci --omit=dev --workspaces=false && npm cache clean --force
# the CLI on PATH: `docker exec <container> engage accounts create …` (bin/engage.js runs dist/ when
# there are no sources). Not `npx engage`: npx would chmod the root-owned bin as the node user and fail.
COPY bin ./bin
RUN chmod 755 bin/engage.js && ln -s /app/bin/engage.js /usr/local/bin/engage
COPY --from=build /app/dist ./dist
# the code stays root-owned (read-only to the service); only the embedded Postgres's data dir is writable
RUN mkdir -p /app/.engage && chown node:node /app/.engage
USER node
EXPOSE 3000
# node is the only tool the image is sure to have; PORT as the service reads it (empty = 3000)
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# --max-semi-space-size, --heap-growing-percent: the service's V8 flags (src/node-flags.ts, README "The write path")
CMD ["node", "--max-semi-space-size=32", "--heap-growing-percent=100", "dist/src/main.js", "serve"]
