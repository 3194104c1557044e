# agent-run as a container image, for the recipes in docs/kubernetes.md: the built CLI with its
# production dependencies, git (agent-run's snapshots and diffs) and bubblewrap (sandbox: bwrap).
#   docker build -t agent-run:local .
# No secret is baked in: the API key comes from the environment when the container runs.
# This repository's CI does not build the image (no container engine there); a test checks this
# file statically (test/docs/dockerfile.test.ts).

FROM node:22-bookworm-slim AS build
WORKDIR /opt/agent-run
COPY package.json package-lock.json ./
RUN npm ci --include=dev --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ca-certificates git \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir /work && chown node:node /work
WORKDIR /opt/agent-run
COPY --from=build /opt/agent-run/package.json ./
COPY --from=build /opt/agent-run/node_modules ./node_modules
COPY --from=build /opt/agent-run/dist ./dist
COPY bin ./bin
COPY schema ./schema
RUN ln -s /opt/agent-run/bin/agent-run.js /usr/local/bin/agent-run
USER node
WORKDIR /work
ENTRYPOINT ["node", "/opt/agent-run/bin/agent-run.js"]
CMD ["--help"]
