/* ctf/ctf.h — the CTF 1.8 writer: a model's records as a Common Trace Format trace directory
 * (a TSDL `metadata` file and one binary stream file per (instance, shard)) that babeltrace2
 * and Trace Compass open. docs/guide/read.md ("CTF") says what the trace holds.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CTF_CTF_H
#define BB_CTF_CTF_H

#include <stddef.h>

#include "backbeat/model.h"
#include "emit/writers.h"

/* Write the trace of the model's records (opts->keep filters them) into the directory open as
 * `dir_fd`, which the caller created empty (and renames into place on success, removes on
 * failure: the writer creates files in it, never renames). Streaming: memory grows with the
 * streams and the event types, not the records. Returns 0, or non-zero after writing a message
 * naming the problem into errbuf. */
int ct_write(const bb_model *model, const convert_opts *opts, int dir_fd, char *errbuf,
             size_t errlen);

#endif /* BB_CTF_CTF_H */
