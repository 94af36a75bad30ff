/* lttng_tp.h — the LTTng-UST tracepoint provider of bench/lttng_side.c: the same three fields as
 * the backbeat event (u64, u32, u8), one event enabled in the snapshot session and one left off.
 * LTTng-UST 2.13 API (multi-read provider header, see lttng-ust(3)). */
/* SPDX-License-Identifier: MIT */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bbbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(BB_BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BB_BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(bbbench, packet_sent,
    LTTNG_UST_TP_ARGS(uint64_t, conn_id, uint32_t, len, uint8_t, role),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, conn_id, conn_id)
        lttng_ust_field_integer(uint32_t, len, len)
        lttng_ust_field_integer(uint8_t, role, role)))

LTTNG_UST_TRACEPOINT_EVENT(bbbench, packet_off,
    LTTNG_UST_TP_ARGS(uint64_t, conn_id, uint32_t, len, uint8_t, role),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, conn_id, conn_id)
        lttng_ust_field_integer(uint32_t, len, len)
        lttng_ust_field_integer(uint8_t, role, role)))

#endif

#include <lttng/tracepoint-event.h>
