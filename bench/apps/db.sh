# bench/apps/db.sh: a throwaway MariaDB server for the database client
# benchmarks (bench/apps/run.sh, bench/apps/diag/db-switches-by-thread.sh).
# Sourced. Each function prints what went wrong on stderr and returns 1; the
# caller stops the run.
# shellcheck shell=bash

# db_user DIR: the user mariadbd runs as. mariadbd does not run as root unless
# told to: as root, run it as the mysql user when that user can write to DIR
# (TMPDIR may be private), else as root. Gives DIR to that user.
db_user() {
  local dir=$1
  if [ "$(id -u)" != 0 ]; then id -un; return 0; fi
  if id mysql >/dev/null 2>&1; then
    chown -R mysql "$dir"
    if runuser -u mysql -- test -w "$dir" 2>/dev/null; then echo mysql; return 0; fi
    chown -R root "$dir"
  fi
  echo root
}

# db_install DATADIR USER LOG: an empty data directory for the server
db_install() {
  mariadb-install-db --no-defaults --datadir="$1" --user="$2" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >"$3" 2>&1 && return 0
  tail -n 20 "$3" >&2
  echo "mariadb-install-db failed (log: $3)" >&2
  return 1
}

# db_free_port: a TCP port free on 127.0.0.1 now
db_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# db_server_args DIR USER PORT MAX_CONNECTIONS: sets DB_SERVER_ARGS, the options
# of a server whose data directory is DIR/data and whose logs, socket and pid
# file are in DIR. Tuned for a benchmark, not for keeping data.
db_server_args() {
  local dir=$1
  DB_SERVER_ARGS=(--no-defaults --user="$2" --datadir="$dir/data" --socket="$dir/mariadbd.sock"
    --pid-file="$dir/mariadbd.pid" --log-error="$dir/mariadbd.err" --port="$3" --bind-address=127.0.0.1
    --skip-grant-tables --skip-name-resolve --skip-log-bin --performance-schema=OFF
    --max-connections="$4" --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2)
}

# db_wait_ready DIR PID: waits up to 60 s for the server started with
# db_server_args DIR ... to accept connections
db_wait_ready() {
  local err=$1/mariadbd.err pid=$2 i
  for ((i = 0; i < 600; i++)); do
    grep -q 'ready for connections' "$err" 2>/dev/null && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "mariadbd exited; the end of its log ($err):" >&2
      tail -n 20 "$err" >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.1
  done
  tail -n 20 "$err" >&2 2>/dev/null || true
  echo "the MariaDB server was not ready within 60 s (log: $err)" >&2
  return 1
}

# db_url PORT: the JDBC URL of the benchmark's database on that server
db_url() {
  echo "jdbc:mariadb://127.0.0.1:$1/bench?user=bench&connectTimeout=10000"
}
