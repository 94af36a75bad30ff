/* backbeat/backbeat.h — the umbrella header: define events (event.h), record them and dump
 * (recorder.h), or use the process-wide recorder (global.h); log lines (log.h: BB_LOG, BB_GLOG);
 * version.h. What a program includes. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_BACKBEAT_H
#define BACKBEAT_BACKBEAT_H

#include "event.h"
#include "recorder.h"
#include "global.h"
#include "log.h"
#include "version.h"

#endif /* BACKBEAT_BACKBEAT_H */
