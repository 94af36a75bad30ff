/* table/trigger_meta.h — what fired a triggered dump, as the Parquet table's key-value metadata
 * (docs/PARQUET_TABLE.md "Triggers"): backbeat.trigger.* for the first firing, backbeat.triggers
 * (a JSON array) for every one. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TABLE_TRIGGER_META_H
#define BB_TABLE_TRIGGER_META_H

#include <stdbool.h>
#include <stddef.h>

#include "emit/writers.h"
#include "parquet/buf.h"
#include "parquet/footer.h"

/* Key-value pairs the triggers add (none without triggers). */
#define TW_TRIGGER_KV 12

/* Fill kv[0..*nkv) (*nkv <= TW_TRIGGER_KV) for the n triggers `t`; the values live in `vals`
 * (the caller frees it with pq_buf_free once the footer is encoded). False when out of memory. */
bool tw_trigger_kv(const convert_trigger *t, size_t n, pq_buf *vals, pq_kv *kv, size_t *nkv);

#endif /* BB_TABLE_TRIGGER_META_H */
