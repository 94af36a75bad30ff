#!/usr/bin/env bash
# lttng.sh BUILD_DIR — backbeat and LTTng-UST side by side (issue 13; section `lttng` of
# scripts/bench.sh). Installs liblttng-ust-dev, lttng-tools and babeltrace2 when missing (apt,
# as root), rebuilds bench/lttng_side against them, starts its own lttng-sessiond --daemonize
# with LTTNG_HOME in a temporary directory (as user nobody when run as root, so that it is a
# per-user daemon of its own, not the system one), creates a snapshot session enabling
# bbbench:packet_sent, and runs bench/lttng_side.c twice: on the host as it is, and with a
# competing busy loop pinned to the same CPU. Each run checks that both captured: the snapshot
# (read back with babeltrace2) and the backbeat dump (read back with `backbeat convert`) each
# hold the newest event. The daemon and the busy loop are stopped by their pids.
# Sizes: BB_BENCH_LTTNG_EVENTS per round (default 200000), BB_BENCH_LTTNG_ROUNDS (default 15).
# SPDX-License-Identifier: MIT
set -euo pipefail
B="$(cd "${1:-build-bench}" && pwd)"
EVENTS="${BB_BENCH_LTTNG_EVENTS:-200000}"
ROUNDS="${BB_BENCH_LTTNG_ROUNDS:-15}"

missing=()
pkg-config --exists lttng-ust 2>/dev/null || missing+=(liblttng-ust-dev)
command -v lttng-sessiond >/dev/null && command -v lttng >/dev/null || missing+=(lttng-tools)
command -v babeltrace2 >/dev/null || missing+=(babeltrace2)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "lttng.sh: missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "  installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null
fi
cmake "$B" >/dev/null # finds lttng-ust now
cmake --build "$B" --target lttng_side backbeat_cli -j2 >/dev/null
if ! nm "$B/bench/lttng_side" | grep lttng_ust >/dev/null; then # not -q: nm would get SIGPIPE (pipefail)
  echo "lttng.sh: $B/bench/lttng_side was built without lttng-ust" >&2
  exit 1
fi

T="$(mktemp -d "${TMPDIR:-/tmp}/bb-lttng.XXXXXX")"
chmod 755 "$T"
SESSIOND_PID=""
LOAD_PID=""
cleanup() {
  [ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null || true
  if [ -n "$SESSIOND_PID" ]; then
    kill "$SESSIOND_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SESSIOND_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
if [ "$(id -u)" -eq 0 ]; then
  chown 65534:65534 "$T"
  as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" LTTNG_HOME="$T" "$@"; }
else
  as_user() { env LTTNG_HOME="$T" "$@"; }
fi
as_user lttng-sessiond --daemonize
SESSIOND_PID="$(cat "$T/.lttng/lttng-sessiond.pid")"
as_user lttng create bbsnap --snapshot >/dev/null
as_user lttng enable-event -u bbbench:packet_sent >/dev/null
as_user lttng start >/dev/null

CPU0="$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')"
# one_run LABEL: the bench, then both read-backs of its newest event.
one_run() {
  echo "== $1 (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  as_user "$B/bench/lttng_side" "$T/bb.bb" "$EVENTS" "$ROUNDS" | tee "$T/out.txt"
  local last snap
  last="$(sed -n 's/^newest conn_id //p' "$T/out.txt")"
  as_user lttng snapshot record >/dev/null
  snap="$(ls -d "$T"/lttng-traces/bbsnap-*/snapshot-* | tail -1)"
  local n_lt n_bb
  n_lt="$(babeltrace2 "$snap" | grep -c "conn_id = $last," || true)"
  "$B/backbeat" convert "$T/bb.bb" -f trace -o "$T/bb.json" >/dev/null
  n_bb="$(grep -c "\"conn_id\":$last[,}]" "$T/bb.json" || true)"
  echo "   read back: LTTng snapshot $(babeltrace2 "$snap" | wc -l) events, newest (conn_id $last) found $n_lt time(s); backbeat dump $(( $(stat -c %s "$T/bb.bb") / 1024 )) KiB, newest found $n_bb time(s)"
  if [ "$n_lt" -lt 1 ] || [ "$n_bb" -lt 1 ]; then
    echo "lttng.sh: the newest event is missing from a capture" >&2
    exit 1
  fi
  rm -rf "$snap" "$T/bb.bb" "$T/bb.json"
}
echo "  CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs online; kernel $(uname -r)"
one_run "as the host is"
taskset -c "$CPU0" sh -c 'while :; do :; done' &
LOAD_PID=$!
one_run "with a competing busy loop on CPU $CPU0"
kill "$LOAD_PID"
LOAD_PID=""
as_user lttng destroy bbsnap >/dev/null
