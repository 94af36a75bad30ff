/* abi_check.h — the check of a descriptor's layout tag (abi.c, detail/abi.h), for the capture
 * library's entry points that receive structures compiled into programs. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CAPTURE_ABI_CHECK_H
#define BB_CAPTURE_ABI_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "backbeat/detail/abi.h"

/* True when the layout tag of `desc` (a bb_event_desc or bb_view_desc: the tag is the first
 * member of both) is this library's. Otherwise false, and the first refusal of the process is
 * reported on stderr with the `kind` ("events", "view sets") and, when `may_lookup` (not in a
 * signal handler: dladdr), the object that holds the descriptor. Nothing else of a refused
 * descriptor is read. */
bool bb__abi_accept(const void *desc, const char *kind, bool may_lookup);

#endif /* BB_CAPTURE_ABI_CHECK_H */
