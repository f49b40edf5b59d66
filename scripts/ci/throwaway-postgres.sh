#!/usr/bin/env bash
# A throwaway PostgreSQL server for CI and benchmarks, from Debian's packages (installed when missing):
#   throwaway-postgres.sh start DIR PORT   initdb in DIR, start on 127.0.0.1:PORT (fsync off), print its URL
#   throwaway-postgres.sh stop DIR         stop it at once (its data is thrown away with DIR)
set -euo pipefail
command=${1:?usage: throwaway-postgres.sh start DIR PORT | stop DIR}
dir=${2:?usage: throwaway-postgres.sh start DIR PORT | stop DIR}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# The server refuses to run as root: as root, it runs as user postgres.
run_pg() { if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; runuser -u postgres -- "$@"; else "$@"; fi; }

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null
fi
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

case "$command" in
  start)
    port=${3:?usage: throwaway-postgres.sh start DIR PORT}
    mkdir -p "$dir"
    chmod 755 "$dir"
    run_pg "$pg_bin/initdb" -D "$dir/data" -U postgres --auth=trust >/dev/null
    run_pg "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    run_pg "$pg_bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null
    ;;
  *)
    echo "usage: throwaway-postgres.sh start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
