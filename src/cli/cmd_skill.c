/* skill.c — `backbeat skill`: a Markdown guide for a newcomer (or an agent) to the tool, the
 * Parquet table's shape, loading the views in DuckDB, and common queries. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"

static const char skill_help[] =
    "usage: backbeat skill\n"
    "\n"
    "Print a Markdown guide: the subcommands, the Parquet table's shape, how to load the views\n"
    "in DuckDB, and common queries.\n"
    "\n"
    "  -h, --help   show this help\n";

static const char *const guide[] = {
    "# backbeat: reading flight-recorder dumps\n"
    "\n"
    "A program linked with libbackbeat records fixed-layout events into per-CPU rings and dumps\n"
    "them to a `.bb` file (on demand or when it crashes). The `backbeat` tool reads those dumps.\n"
    "Exit status: 0 success, 1 failure (the message names the file and the problem), 2 usage\n"
    "error. Every subcommand has `--help`.\n"
    "\n"
    "## Subcommands\n"
    "\n"
    "- `backbeat inspect DUMP` — what a dump holds: size, flags, sections; every event type\n"
    "  (id, qualified name, record size, span phase, description) and field (type, unit,\n"
    "  sentinel, role); the instances (id, host, intern strings); the view sets; per shard the\n"
    "  capacity, head, records recovered and bytes skipped as torn. `--json` for scripts,\n"
    "  `--intern-limit N` intern entries shown per instance. A crash dump\n"
    "  (`BACKBEAT_DUMP_ON_CRASH=1`) starts with its crash: signal, code, address, thread and\n"
    "  the stack as `#N function+0xOFF (module+0xOFF) file:line` (symbolized from module files\n"
    "  whose build-id matches; else `module+0xOFF [build-id]` for `addr2line -e`); `--symbols\n"
    "  DIR` points at unstripped copies or separate debug files (`BUILDID.debug`).\n"
    "- `backbeat convert DUMP... -o OUT.parquet` — one Parquet table of every record, in time\n"
    "  order, duplicates of overlapping dumps removed; also writes `OUT.parquet.views.sql`.\n"
    "- `backbeat convert DUMP... -o OUT.json` — a Chrome/Perfetto trace: open it in\n"
    "  <https://ui.perfetto.dev> or chrome://tracing. One process per instance, one thread per\n"
    "  shard (CPU); spans are slices, other events instants with their fields as args.\n"
    "  Timestamps are microseconds since the first record (`otherData.backbeat.base_ts_nanos`).\n"
    "- `backbeat convert DUMP... --dataset DIR` — append to a Hive-partitioned dataset\n"
    "  (`DIR/host=H/date=YYYY-MM-DD/part-*.parquet`, `--partition-by host,date,event,instance`):\n"
    "  records already there skipped, every part with the dataset's union schema (an append\n"
    "  that widens it re-converts the earlier parts from their kept sources, unless\n"
    "  `--no-rewrite`), concurrent appenders safe; `DIR/views.sql` binds the views over all\n"
    "  parts; a plain `read_parquet('DIR/**/*.parquet', hive_partitioning = true)` works.\n"
    "- `backbeat merge DUMP... -o ALL.bb` — one multi-instance dump (duplicates dropped, rings\n"
    "  re-packed); `--no-dedup` splices the sections as they are.\n"
    "- `backbeat recover FILE.ring... -o OUT.bb` — the dump of a process killed without dumping\n"
    "  (SIGKILL, OOM) that recorded with `BACKBEAT_RING_DIR`; `--scan DIR` lists ring files and\n"
    "  whether their process is gone; `--force` recovers a file whose process still runs.\n"
    "  `convert` also reads ring files directly.\n"
    "- `backbeat tail [--follow] [--format text|jsonl] [--event NAME]... [--instance HEX]...\n"
    "  [--since-now] RINGFILE... | --scan DIR` — the records of running processes' ring files\n"
    "  in timestamp order, as they are committed with `--follow` (read-only: no effect on the\n"
    "  writer); jsonl keys are the Parquet table's names (`ts_nanos`, `event`, `event_id`,\n"
    "  `instance_id`, `shard`, then the fields); laps lost are reported on stderr.\n"
    "- `backbeat top [--scan DIR | RINGFILE...] [--interval MS] [--shards] [--once |\n"
    "  --iterations N] [--format text|jsonl]` — records per second per event, process and shard,\n"
    "  bytes per second, ring fill, lap losses and metadata drops of running processes' ring\n"
    "  files (read-only); jsonl: one object per row (`row`: process, event or shard) per interval.\n"
    "- `backbeat skill` — this guide.\n"
    "\n",
    "Useful `convert` options: `-f`/`--format parquet|trace|ctf` (ctf: a CTF 1.8 directory for\n"
    "babeltrace2 and Trace Compass; -f is required with `-o -`; `-o` is\n"
    "also `--output`, for `merge` and `recover` too), `--host NAME`, `--threads N` (encoding\n"
    "threads, every online CPU by default),\n"
    "`--compression zstd|snappy|gzip|none`, `--compression-level N`, and filters that keep a\n"
    "trace small enough to open:\n"
    "`--since`/`--until` (absolute ns, or relative to the first record: `+1.5s`, `+200ms`,\n"
    "`+10us`, `+5ns`), `--event 'ns::Name*'` (repeatable globs) and `--instance HEX`;\n"
    "`--symbols DIR` for crash stacks. A crash is the view `crash` (the `backbeat::Crash` row\n"
    "with `stack`, symbolized at conversion: `SELECT ts, stack FROM crash`) and, in a trace, an\n"
    "instant `backbeat::Crash` whose args carry `backbeat.stack`.\n"
    "\n",
    "## The Parquet table\n"
    "\n"
    "One row per record, sparse-wide:\n"
    "\n"
    "| column | type | meaning |\n"
    "| --- | --- | --- |\n"
    "| `seq` | UINT64 | 0-based row number in global order |\n"
    "| `ts_nanos` | UINT64 | the record's timestamp (ns) |\n"
    "| `ts` | TIMESTAMP (ns, UTC) | the same as a timestamp (time functions without a cast) |\n"
    "| `event` | STRING | qualified name `ns::Name`, the same in every build |\n"
    "| `event_id` | UINT64 | content hash of the event's schema (tells builds apart) |\n"
    "| `instance_id` | UINT64 | the process (recorder instance) that wrote it |\n"
    "| key / span columns | nullable | every field with role key, span_id or parent_span_id, "
    "promoted to the top level (unioned by name) |\n"
    "| `\"ns::Name\"` | nullable STRUCT | one per event name: the union by name of every "
    "build's other fields (NULL on other rows) |\n"
    "\n"
    "Unsigned integers are UINT64, signed INT64, bools BOOLEAN; a field whose type differs between\n"
    "builds (or a key shared by events) gets the widest (u64 with signed: decimal STRING, see\n"
    "docs/PARQUET_TABLE.md); enums are their label (or the\n"
    "number as text), byte arrays lower-case hex, interned strings their text (`#<id>` when\n"
    "missing). A field equal to its sentinel (\"no value\") is NULL. The footer's key-value\n"
    "metadata carries `backbeat.format`, `backbeat.host`, `backbeat.views` (the query DDL),\n"
    "`backbeat.columns` (JSON: every column's event, role, unit, sentinel, description and span\n"
    "phase) and `backbeat.instances` (id, host and row count per instance).\n"
    "\n",
    "## Loading it in DuckDB\n"
    "\n"
    "```sh\n"
    "backbeat convert trace.bb -o trace.parquet      # also writes trace.parquet.views.sql\n"
    "duckdb -cmd \"SET file_search_path = '.'\" -cmd \".read trace.parquet.views.sql\"   # interactive\n"
    "duckdb -cmd \"SET file_search_path = '.'\" -cmd \".read trace.parquet.views.sql\" -c \"SELECT * FROM backbeat_keys\"\n"
    "```\n"
    "\n"
    "In another directory, name it in both places (`SET file_search_path = 'DIR'`, `.read\n"
    "DIR/trace.parquet.views.sql`); without the `duckdb` tool, `node scripts/query.mjs\n"
    "DIR/trace.parquet.views.sql [SQL]` from a backbeat checkout does the same.\n"
    "The sidecar defines `events` (bound to the Parquet file by its name, relative to the\n"
    "sidecar's directory: move or copy the two together), one view per event type named like it (`\"ns::Name\"`: the rows of that type;\n"
    "its own fields are in the struct column of the same name), `backbeat_keys(event, field,\n"
    "role)` listing the promoted key/span columns, then every view set the program registered.\n"
    "Without the sidecar: `SELECT * FROM read_parquet('trace.parquet')`.\n"
    "\n",
    "## Common queries\n"
    "\n"
    "```sql\n"
    "-- what happened, by type\n"
    "SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY n DESC;\n"
    "\n"
    "-- the last 50 records before the dump\n"
    "SELECT seq, ts_nanos, event FROM events ORDER BY seq DESC LIMIT 50;\n"
    "\n"
    "-- a time window, relative to the first record (ns)\n"
    "SELECT * FROM events\n"
    "WHERE ts_nanos BETWEEN (SELECT min(ts_nanos) FROM events) + 1000000\n"
    "                   AND (SELECT min(ts_nanos) FROM events) + 2000000;\n"
    "\n"
    "-- everything about one key (key columns are top-level)\n"
    "SELECT ts_nanos, event FROM events WHERE conn_id = 7 ORDER BY ts_nanos;\n"
    "\n"
    "-- one event type: its rows, and a field of its struct column\n"
    "SELECT ts_nanos, p.\"my_app::net::PacketSent\".len AS len\n"
    "FROM \"my_app::net::PacketSent\" p ORDER BY ts_nanos LIMIT 10;\n"
    "\n"
    "-- span durations: pair enters and exits by (instance_id, span id column)\n"
    "-- (span ids are per process: always join on instance_id too)\n"
    "SELECT e.instance_id, e.span_id, x.ts_nanos - e.ts_nanos AS dur_ns\n"
    "FROM events e JOIN events x\n"
    "  ON x.instance_id = e.instance_id AND x.span_id = e.span_id AND x.seq > e.seq\n"
    "WHERE e.event = 'my_app::WorkStart' AND x.event = 'my_app::WorkEnd'\n"
    "ORDER BY dur_ns DESC LIMIT 20;\n"
    "```\n"
    "\n"
    "(Replace the span column name with the one `backbeat_keys` lists for role `span_id`.)\n"
    "\n",
    "## Tips\n"
    "\n"
    "- Several dumps of one process overlap; convert them together and duplicates go away.\n"
    "- Traces over ~1 GB are slow in the browser: filter with `--since/--until/--event`.\n"
    "- In the trace, a span whose exit was lost is closed at the end with\n"
    "  `backbeat.unclosed: true`; an exit without its enter is an instant with\n"
    "  `backbeat.orphan_exit: true`. A span is drawn inside another only if it descends\n"
    "  from it by `parent_span_id`; spans of one shard that overlap otherwise go on extra\n"
    "  threads named `shard N (overlap K)` (the lowest free one when the span begins).\n"
    "- Spark reads UINT64 columns as DECIMAL(20,0) (Spark 3.2+).\n"};

/* `backbeat skill`: print the guide. */
int cmd_skill(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(skill_help, stdout);
            return CLI_OK;
        }
        return cli_usage_error("skill", "unexpected argument '%s'", argv[i]);
    }
    bool ok = true;
    for (size_t i = 0; i < sizeof guide / sizeof guide[0]; i++)
        ok = ok && fputs(guide[i], stdout) >= 0;
    if (!ok || fflush(stdout) != 0) {
        cli_error("cannot write standard output");
        return CLI_FAIL;
    }
    return CLI_OK;
}
