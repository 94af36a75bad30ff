/* reader.c — open, validate and decode `.bb` dumps (FORMAT.md, format v1): the envelope, the
 * section table and the decode driver; the other phases are reader_registry.c,
 * reader_instances.c, reader_shards.c and reader_fields.c, over reader_base.c
 * (read/reader_internal.h).
 *
 * bb_dump_open maps the file, checks the envelope and section table, and decodes the first
 * Schema section, every Intern, Meta, Views and Shard section (unknown kinds are skipped) into
 * structures owned by the bb_dump. Strings stay views into the mapping. Every count is checked
 * against the bytes left in its section before anything is allocated, so allocation is bounded
 * by the input size. bb_shard_walk recovers records newest-first with the torn-record resync of
 * FORMAT.md "Records and rings"; bb_decode_field applies compat/README.md "JSON conventions".
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "backbeat/detail/frame.h"
#include "common/error_set.h"
#include "format/names.h"
#include "format/wire.h"
#include "read/read_cursor.h"
#include "read/reader_internal.h"
#include "read/reader_priv.h"

/* ---- envelope ------------------------------------------------------------------------------ */

/* Check magic, version and the section table; every section must lie inside the file. */
static bb_status read_envelope(ctx *c) {
    bb_dump *d = c->d;
    size_t n = d->size;
    if (n == 0) return bb__rd_fail(c, BB_ERR_NOT_DUMP, 0, "not a backbeat dump (empty file)");
    if (memcmp(d->data, BB_DUMP_MAGIC, n < BB_DUMP_MAGIC_SIZE ? n : BB_DUMP_MAGIC_SIZE) != 0)
        return bb__rd_fail(c, BB_ERR_NOT_DUMP, 0, "not a backbeat dump (bad magic)");
    if (n < ENVELOPE)
        return bb__rd_fail(c, BB_ERR_TRUNCATED, n,
                           "truncated at byte %zu (the envelope is 16 bytes)", n);
    d->version = bb__le_get_u16(d->data + 8);
    d->flags = bb__le_get_u16(d->data + 10);
    d->nsec = bb__le_get_u16(d->data + 12);
    if (d->version != BB_DUMP_FORMAT_VERSION)
        return bb__rd_fail(c, BB_ERR_VERSION, 8, "unsupported format version %u (expected 1)",
                           d->version);
    uint64_t table_end = ENVELOPE + (uint64_t)SECTION_ENTRY * d->nsec;
    if (table_end > n)
        return bb__rd_fail(
            c, BB_ERR_TRUNCATED, n,
            "truncated at byte %zu (the section table of %u entries ends at byte %llu)", n, d->nsec,
            (unsigned long long)table_end);
    d->secs = bb__rd_array(d, d->nsec, sizeof *d->secs);
    if (!d->secs) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (section table)");
    /* A file cut short looks like its last back-to-back section running past the end: that is
     * reported as truncation; anything else out of range is a bounds error. */
    uint64_t expect = table_end;
    bool contiguous = true;
    for (size_t i = 0; i < d->nsec; i++) {
        const uint8_t *e = d->data + ENVELOPE + SECTION_ENTRY * i;
        section *s = &d->secs[i];
        s->kind = bb__le_get_u16(e);
        s->offset = bb__le_get_u64(e + 4);
        s->len = bb__le_get_u64(e + 12);
        if (s->offset != expect) contiguous = false;
        bool overflow = s->len > UINT64_MAX - s->offset;
        expect = overflow ? UINT64_MAX : s->offset + s->len;
        if (overflow || s->offset + s->len > n) {
            if (!overflow && contiguous && s->offset <= n)
                return bb__rd_fail(c, BB_ERR_TRUNCATED, n,
                                   "truncated at byte %zu (section %zu, %s, ends at byte %llu)", n,
                                   i, bb__section_kind_name(s->kind),
                                   (unsigned long long)(s->offset + s->len));
            return bb__rd_fail(c, BB_ERR_BOUNDS, ENVELOPE + SECTION_ENTRY * i,
                               "section %zu (%s) out of bounds: offset %llu + length %llu %s the "
                               "file size %zu",
                               i, bb__section_kind_name(s->kind), (unsigned long long)s->offset,
                               (unsigned long long)s->len,
                               overflow ? "overflows, exceeding" : "exceeds", n);
        }
    }
    return BB_OK;
}

/* Validate and decode the whole dump (envelope, then sections in table order). */
static bb_status decode(ctx *c) {
    bb_dump *d = c->d;
    bb_status st = read_envelope(c);
    if (st) return st;
    tagged *tags = calloc(d->nsec ? d->nsec : 1, sizeof *tags);
    if (!tags) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory");
    size_t ntags = 0, nviews = 0;
    bool have_schema = false;
    for (size_t i = 0; i < d->nsec && !st; i++) {
        switch (d->secs[i].kind) {
        case BB_SECTION_SCHEMA:
            if (!have_schema) st = bb__rd_schema_section(c, i);
            have_schema = true;
            break;
        case BB_SECTION_INTERN:
            tags[ntags].si = i;
            st = bb__rd_scan_intern(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_META:
            tags[ntags].si = i;
            st = bb__rd_scan_meta(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_SHARD:
            tags[ntags].si = i;
            st = bb__rd_scan_shard(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_VIEWS: nviews++; break;
        case BB_SECTION_PROCESS:
            tags[ntags].si = i;
            st = bb__rd_scan_process(c, i, &tags[ntags++]);
            break;
        default: break; /* unknown kinds are skipped: that is how the format grows */
        }
    }
    if (!st && !have_schema) st = bb__rd_schema_index(c); /* empty registry */
    if (!st) st = bb__rd_instances(c, tags, ntags);
    free(tags);
    if (st) return st;
    d->views = bb__rd_array(d, nviews, sizeof *d->views);
    if (!d->views) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (views)");
    for (size_t i = 0; i < d->nsec; i++) {
        if (d->secs[i].kind != BB_SECTION_VIEWS) continue;
        d->views[d->nviews].ptr = (const char *)d->data + d->secs[i].offset;
        d->views[d->nviews].len = (size_t)d->secs[i].len;
        d->nviews++;
    }
    return BB_OK;
}

/* ---- open / close -------------------------------------------------------------------------- */

/* An empty dump named `name` (copied), or NULL on allocation failure. */
static bb_dump *dump_new(const char *name) {
    bb_dump *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->name = strdup(name ? name : "<memory>");
    if (!d->name) {
        free(d);
        return NULL;
    }
    return d;
}

/* Fill `err` (may be NULL) with "NAME: what" when no dump exists yet to format through. */
static void set_error(bb_error *err, bb_status st, const char *name, const char *what) {
    bb__err_set(err, st, UINT64_MAX, name ? name : "<memory>", "%s", what);
}

/* Decode `d`; on success hand it out (and clear `err`), else close it. */
static bb_status finish_open(bb_dump *d, bb_dump **out, bb_error *err) {
    ctx c = {d, err};
    bb_status st = decode(&c);
    if (st) {
        bb_dump_close(d);
        return st;
    }
    bb__err_clear(err);
    *out = d;
    return BB_OK;
}

bb_status bb_dump_open_memory(const void *data, size_t len, const char *name, bb_dump **out,
                              bb_error *err) {
    if (!out || (!data && len)) {
        set_error(err, BB_ERR_INVALID, name, "invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    bb_dump *d = dump_new(name);
    if (!d) {
        set_error(err, BB_ERR_NOMEM, name, "out of memory");
        return BB_ERR_NOMEM;
    }
    d->data = data ? data : (const uint8_t *)"";
    d->size = len;
    return finish_open(d, out, err);
}

/* Ask for the mapping in 2 MiB pages where the kernel can (Linux: transparent huge pages for
 * files): a dump not yet in the page cache is then read into 2 MiB folios that map whole. The
 * first touch of each 4 KiB page of a mapping costs a fault (about 2 us a page in a VM, 0.25 s for
 * a 448 MiB dump); a 2 MiB page costs one for 512 (docs/PERFORMANCE.md, sixth pass). Advice
 * only: a kernel without it, or a dump cached in small folios, maps as before. */
static void advise_huge(void *map, size_t size) {
#if defined(MADV_HUGEPAGE)
    if (size >= ((size_t)2 << 20)) (void)madvise(map, size, MADV_HUGEPAGE);
#else
    (void)map;
    (void)size;
#endif
}

bb_status bb_dump_open(const char *path, bb_dump **out, bb_error *err) {
    if (!out || !path) {
        set_error(err, BB_ERR_INVALID, path, "invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    char msg[200];
    /* O_NONBLOCK: a FIFO (or device) is refused by the regular-file check below instead of
     * blocking the open until a writer comes. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
        set_error(err, BB_ERR_IO, path, msg);
        return BB_ERR_IO;
    }
    struct stat sb;
    int stat_rc = fstat(fd, &sb);
    if (stat_rc != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(msg, sizeof msg, "cannot read: %s",
                 stat_rc != 0 ? strerror(errno) : "not a regular file");
        close(fd);
        set_error(err, BB_ERR_IO, path, msg);
        return BB_ERR_IO;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        set_error(err, BB_ERR_TOO_LARGE, path, "file too large to map");
        return BB_ERR_TOO_LARGE;
    }
    size_t size = (size_t)sb.st_size;
    void *map = NULL;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(msg, sizeof msg, "cannot map: %s", strerror(errno));
            close(fd);
            set_error(err, BB_ERR_IO, path, msg);
            return BB_ERR_IO;
        }
        advise_huge(map, size);
    }
    close(fd);
    bb_dump *d = dump_new(path);
    if (!d) {
        if (map) munmap(map, size);
        set_error(err, BB_ERR_NOMEM, path, "out of memory");
        return BB_ERR_NOMEM;
    }
    d->map = map;
    d->map_len = size;
    d->data = map ? map : (const uint8_t *)"";
    d->size = size;
    return finish_open(d, out, err);
}

void bb_dump_close(bb_dump *d) {
    if (!d) return;
    for (alloc_link *l = d->allocs; l;) {
        alloc_link *next = l->next;
        free(l);
        l = next;
    }
    if (d->map) munmap(d->map, d->map_len);
    free(d->name);
    free(d);
}

/* ---- accessors ----------------------------------------------------------------------------- */

const char *bb_dump_name(const bb_dump *d) { return d->name; }
uint64_t bb_dump_file_size(const bb_dump *d) { return d->size; }
uint16_t bb_dump_format_version(const bb_dump *d) { return d->version; }
uint16_t bb_dump_flags(const bb_dump *d) { return d->flags; }
uint16_t bb_dump_section_count(const bb_dump *d) { return d->nsec; }

void bb_dump_section(const bb_dump *d, size_t i, uint16_t *kind, uint64_t *offset, uint64_t *len) {
    section s = {0xFFFF, 0, 0};
    if (i < d->nsec) s = d->secs[i];
    if (kind) *kind = s.kind;
    if (offset) *offset = s.offset;
    if (len) *len = s.len;
}
