/* dataset_internal.h — what the dataset store's files share beyond its API (dataset/dataset.h):
 * the parts of one append, the transaction, the duplicate-key index, the schema dump, the
 * manifests, the kept sources and the rewrite. Private to src/dataset/.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_DATASET_INTERNAL_H
#define BB_DATASET_INTERNAL_H

#include "dataset/dataset.h"

/* ---- dataset_parts.c: the parts of one append ---- */
const char *ds_key_name(ds_key k);
typedef struct ds_index ds_index;
typedef struct ds_txn ds_txn;
typedef struct ds_route {
    const ds_handle *h;
    ds_txn *t;
    const bb_model *model;
    const convert_opts *opts; /* keep filters the records; host_override names the host */
    const ds_spec *spec;
    ds_index *ix;       /* records it holds are skipped; those written are added */
    bool no_add;        /* ... unless no_add (the last replay: nothing comes after it) */
    char *const *fixed; /* a replay: the append's part names in opening order, else NULL */
    size_t nfixed;
    const char *what; /* a replay: which append, for messages */
} ds_route;
/* Write the model's kept records that the index lacks into parts (one per partition and
 * instance), *nparts of them, adding their bytes to *bytes; 0, or 1 after a message. */
int ds_route_parts(const ds_route *r, size_t *nparts, uint64_t *bytes, bb_error *err);

/* ---- dataset_txn.c: paths in messages ---- */
/* "DIR/rel" (rel may be NULL) for a message, at most DS_PATH_MSG - 1 bytes: a longer path keeps
 * its start and its end around "..." (a bb_error holds 256 bytes: what follows the path, the
 * reason, must fit). Returns buf. */
#define DS_PATH_MSG 120
const char *ds_path_msg(char buf[DS_PATH_MSG], const char *dir, const char *rel);

/* ---- dataset_txn.c: an append's files, committed as a whole ---- */
/* Open `rel` ("a/b") under directory fd dfd one component at a time with O_NOFOLLOW (a symlink
 * is ELOOP / ENOTDIR), creating missing ones when `create`; the fd, or -1 with errno. */
int ds_open_dirs(int dfd, const char *rel, bool create);
/* A small regular file `name` in dfd (O_NOFOLLOW) into buf[cap], NUL-terminated; *exists false
 * when there is none. False with errno when it cannot be read or is not a regular file. */
bool ds_read_small(int dfd, const char *name, char *buf, size_t cap, bool *exists);
/* The whole regular file `name` of directory dfd (-1: none), O_NOFOLLOW, at most `max` bytes,
 * into a malloc'ed buffer with a NUL after its `len` bytes; *data NULL and true when it does not
 * exist; false with errno when it cannot be read. */
bool ds_slurp(int dfd, const char *name, size_t max, uint8_t **data, size_t *len);

/* Write all n bytes of p to fd (retrying short writes and EINTR); false on an error. */
bool ds_write_all(int fd, const void *p, size_t n);
/* Complete the append a dead appender committed (its journal), remove temporaries. */
bool ds_recover(const ds_handle *h, bb_error *err);
ds_txn *ds_txn_begin(const ds_handle *h, bb_error *err);
/* A temporary for the file `final` (a path under DIR), or for a new part of instance `inst`
 * in partition directory `rel`, named at the commit; the fd (the txn closes it), or -1 after a
 * message. */
int ds_txn_file(ds_txn *t, const char *final, bb_error *err);
int ds_txn_part(ds_txn *t, const char *rel, uint64_t inst, bb_error *err);
/* Close the temporary fd of t now that it is complete (its durability is the commit's: one
 * syncfs); false after a message. */
bool ds_txn_close(ds_txn *t, int fd, bb_error *err);
/* ds_txn_file with its whole content. */
bool ds_txn_put(ds_txn *t, const char *final, const void *data, size_t len, bb_error *err);
/* At the commit, once the new parts are named: the file `final` holding `head` (taken,
 * malloc'ed) then a line "part <path>" per new part, in the order they were opened. */
void ds_txn_set_manifest(ds_txn *t, const char *final, char *head);
/* Commit every file of the transaction as a whole; false after a message. Test hook:
 * BACKBEAT_DATASET_FAULT=K makes the appender _exit(70) at its K-th step (a temporary closed,
 * the journal written, committed, each rename), as a kill there would. */
bool ds_txn_commit(ds_txn *t, bb_error *err);
/* Free; the temporaries of an uncommitted transaction are removed. */
void ds_txn_free(ds_txn *t);

/* ---- dataset_index.c: the set of duplicate keys already in the dataset ---- */
/* The index of the model's instances: their DIR/_backbeat/index/<id>.keys, mapped (a file not
 * sorted yet is sorted into a scratch file first); the new files, written as records are added,
 * are temporaries of t. NULL after a message. */
ds_index *ds_index_load(const ds_handle *h, ds_txn *t, const bb_model *model, bb_error *err);
/* A rewrite's set, of any instance, in scratch files of DIR/_backbeat/tmp (nothing saved);
 * NULL after a message. */
ds_index *ds_index_scratch(const ds_handle *h, bb_error *err);
/* Whether the dataset (a scratch set: a sealed replay) holds r's key; lookups advance cursors
 * as the records come: one instance at a time, each in the model's order. */
bool ds_index_has(ds_index *x, const bb_record *r);
/* Remember a record written in this run; records come one instance at a time, each in the
 * model's order. False after a message. */
bool ds_index_add(ds_index *x, const bb_record *r, bb_error *err);
/* Instance `inst` has no more records to add: its new file is completed and closed (the
 * transaction commits it), its old one unmapped; a scratch set does nothing. False after a
 * message. */
bool ds_index_done(ds_index *x, uint64_t inst, bb_error *err);
/* A scratch set: the current replay ends (what it added is found by the next ones). */
bool ds_index_seal(ds_index *x, bb_error *err);
/* Complete the new index files of the instances that gained keys (the transaction commits
 * them); false after a message. */
bool ds_index_save(ds_index *x, bb_error *err);
void ds_index_free(ds_index *x);

/* ---- dataset_schema.c: the schema dump and its view sets' ranks ---- */
typedef struct ds_blob {
    uint8_t *data; /* malloc'ed */
    size_t len;
} ds_blob;
/* The schema dump of the model: its union registry and its distinct view sets, oldest rank
 * first (rank: per bb_model_view, may be NULL), into *schema, and the sets' ranks as
 * DIR/_backbeat/view_ranks holds them into *ranks; false after a message. */
bool ds_schema_encode(const char *dir, const bb_model *model, const uint64_t *rank, ds_blob *schema,
                      ds_blob *ranks, bb_error *err);

/* ---- dataset_manifest.c: each append's manifest, DIR/_backbeat/appends/<n> ---- */
typedef struct ds_manifest {
    char name[32];   /* <n>, 8 digits: the appends' order */
    uint64_t schema; /* tw_schema_key of the table its parts hold */
    ds_shape shape;
    char **sources; /* content keys: DIR/_backbeat/sources/<key>.bb */
    size_t nsources;
    char **parts; /* paths under DIR */
    size_t nparts;
} ds_manifest;
/* The manifest's text, without its part lines unless with_parts (malloc'ed; NULL: no memory). */
char *ds_manifest_text(const ds_manifest *m, bool with_parts);
/* Every manifest of the dataset, in append order; false after a message. */
bool ds_manifests_load(const ds_handle *h, ds_manifest **v, size_t *n, bb_error *err);
void ds_manifests_free(ds_manifest *v, size_t n);

/* ---- dataset_sources.c: the appends' inputs kept, DIR/_backbeat/sources/<key>.bb ---- */
/* Add each input not kept yet to the transaction; its content key into keys[i]. False after a
 * message. */
bool ds_sources_add(const ds_handle *h, ds_txn *t, const ds_input *in, size_t n, char (*keys)[40],
                    bb_error *err);
/* Open the kept source `key` (a regular file inside the dataset); false after a message. */
bool ds_source_open(const ds_handle *h, const char *key, bb_dump **out, bb_error *err);

/* ---- dataset_rewrite.c: earlier appends re-converted with a new union ---- */
/* Replay every manifest in order from its sources plus the schema dump (schema[len]) into the
 * transaction: those whose schema key is not `key` rewritten onto their own part names (and
 * their manifests with the new key), the others only to know which records they hold. */
bool ds_rewrite(const ds_handle *h, ds_txn *t, const ds_spec *spec, const uint8_t *schema,
                size_t len, uint64_t key, ds_manifest *v, size_t n, unsigned threads,
                ds_report *rep, bb_error *err);

#endif /* BB_DATASET_INTERNAL_H */
