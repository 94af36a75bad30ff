/* log_hook.h — what the global recorder sets in the log call sites' machinery (log_site.c):
 * the hook a recorded line at the dump level calls. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CAPTURE_LOG_HOOK_H
#define BB_CAPTURE_LOG_HOOK_H

#include "backbeat/recorder.h"

/* Called (from the recording thread) for every line recorded at or above bb__log_dump_min. */
void bb__log_dump_hook_set(void (*hook)(bb_recorder *rec, int level));

#endif
