#!/usr/bin/env bash
# log.sh BUILD_DIR — log lines side by side (issue 41; section `log` of scripts/bench.sh).
# Installs libspdlog-dev, liblttng-ust-dev and lttng-tools when missing (apt, as root), rebuilds
# bench/log_side against them, starts its own lttng-sessiond (as bench/lttng.sh does: LTTNG_HOME
# in a temporary directory, as user nobody when run as root) with a snapshot session enabling
# lttng_ust_tracef:*, runs bench/log_side (BB_LOG, BB_RECORD, spdlog, tracef, fprintf; one and
# two threads), checks that the captures hold the newest lines (backbeat log of the dump, the
# spdlog and fprintf files, the LTTng snapshot), then bench/log_read (the formatting rate).
# Sizes: BB_BENCH_LOG_CALLS per round and thread (default 200000), BB_BENCH_LOG_ROUNDS (11).
# SPDX-License-Identifier: MIT
set -euo pipefail
B="$(cd "${1:-build-bench}" && pwd)"
CALLS="${BB_BENCH_LOG_CALLS:-200000}"
ROUNDS="${BB_BENCH_LOG_ROUNDS:-11}"

missing=()
[ -f /usr/include/spdlog/spdlog.h ] || missing+=(libspdlog-dev)
pkg-config --exists lttng-ust 2>/dev/null || missing+=(liblttng-ust-dev)
command -v lttng-sessiond >/dev/null && command -v lttng >/dev/null || missing+=(lttng-tools)
command -v babeltrace2 >/dev/null || missing+=(babeltrace2)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "log.sh: missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "  installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null
fi
cmake "$B" >/dev/null # finds spdlog and lttng-ust now
cmake --build "$B" --target log_side log_read backbeat_cli -j2 >/dev/null

T="$(mktemp -d "${TMPDIR:-/tmp}/bb-log.XXXXXX")"
chmod 755 "$T"
SESSIOND_PID=""
cleanup() {
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
as_user lttng create bblog --snapshot >/dev/null
as_user lttng enable-event -u 'lttng_ust_tracef:*' >/dev/null
as_user lttng start >/dev/null

echo "  CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs online; kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg)"
as_user "$B/bench/log_side" "$T" "$CALLS" "$ROUNDS" | tee "$T/out.txt"
as_user lttng snapshot record >/dev/null
snap="$(ls -d "$T"/lttng-traces/bblog-*/snapshot-* | tail -1)"
last=$((CALLS - 1))
want="req $last took $((last * 3)) us ($((last * 7)))"
n_bb="$("$B/backbeat" log "$T/log_side.bb" | grep -c "$want" || true)"
n_sp="$(grep -c "$want" "$T/spdlog.log" || true)"
n_fp="$(cat "$T"/fprintf*.log | grep -c "$want" || true)"
n_lt="$(babeltrace2 "$snap" | grep -c "$want" || true)"
echo "   read back, newest line \"$want\": backbeat dump $n_bb, spdlog file $n_sp, fprintf files $n_fp, LTTng snapshot $n_lt time(s)"
if [ "$n_bb" -lt 1 ] || [ "$n_sp" -lt 1 ] || [ "$n_fp" -lt 1 ] || [ "$n_lt" -lt 1 ]; then
  echo "log.sh: the newest line is missing from a capture" >&2
  exit 1
fi
as_user lttng destroy bblog >/dev/null
"$B/bench/log_read" "${BB_BENCH_LOG_READ_LINES:-1000000}" "${BB_BENCH_LOG_READ_ROUNDS:-7}"
