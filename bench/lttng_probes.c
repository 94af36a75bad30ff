/* lttng_probes.c — instantiates the LTTng-UST probes and tracepoint definitions of
 * bench/lttng_tp.h for bench/lttng_side.c (built only when lttng-ust is found). */
/* SPDX-License-Identifier: MIT */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"
