/* merge.c — `backbeat merge DUMP... -o OUT.bb`: combine dumps into one multi-instance dump.
 *
 * Default: decode every input through one de-duplicating model and re-pack each
 * (instance, shard) compactly: its surviving records, in global (= ring) order, back to back
 * from position 0 of a new ring whose capacity is the next power of two, so the head is the byte
 * count and a reader's walk recovers exactly those records in the same order. Kept per
 * instance: the union of its intern tables (first input wins an id), its host (Meta), and every
 * (instance, shard) an input had, even empty ones. One Schema section holds the union registry;
 * the inputs' view texts follow, each distinct text once.
 *
 * --no-dedup: one Schema section with the union registry (first input wins an id, file order),
 * then every other section of every input copied verbatim (unknown kinds too), inputs in order.
 *
 * dump_writer.h writes one instance from program descriptors, while a merge writes many
 * instances from decoded ones; both encode through dump_sections.h, here fed from the reader's
 * forms. Output goes to a temporary file renamed into place on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/sections.h"
#include "backbeat/model.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/u64map.h"

static const char merge_help[] =
    "usage: backbeat merge DUMP... -o OUT.bb [--no-dedup]\n"
    "\n"
    "Combine dumps (of one or several processes) into one multi-instance dump.\n"
    "\n"
    "  -o, --output OUT.bb  the merged dump (a file; written to a temporary name, then renamed)\n"
    "      --no-dedup       splice the inputs' sections verbatim (registries unioned) instead of\n"
    "                       decoding, dropping duplicate records and re-packing each shard\n"
    "  -h, --help           show this help\n"
    "\n"
    "Converting the merged dump gives the same rows as converting its inputs together.\n";

/* ------------------------------------------------------------------ growable byte buffer */

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} bytes;

/* Append n bytes; on allocation failure sets b->oom and drops this and later appends. */
static void b_put(bytes *b, const void *d, size_t n) {
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n) nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

/* bb_sink callback appending to the `bytes` at ctx; ENOMEM once an append failed. */
static int bytes_write(void *ctx, const void *d, size_t n) {
    bytes *b = ctx;
    b_put(b, d, n);
    return b->oom ? ENOMEM : 0;
}

/* b as a sink for the dump_sections.h encoders. */
static bb_sink bytes_sink(bytes *b) {
    bb_sink s = {bytes_write, b};
    return s;
}

/* Store v at p[0..7], little-endian (record frames). */
static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A decoded string as a wire string (the reader bounded its length to u16). */
static bb_wire_str wire_view(bb_strview v, bool present) {
    bb_wire_str w = {v.ptr, (uint16_t)v.len, present ? 1 : 0};
    return w;
}

/* Append one schema entry of a Schema section, re-encoded from its decoded form. */
static void encode_schema(bytes *b, const bb_rschema *s) {
    bb_sink sink = bytes_sink(b);
    bb_wire_event we;
    we.id = s->id;
    we.name = wire_view(s->name, true);
    we.description = wire_view(s->description, s->has_description);
    we.record_size = s->record_size;
    we.phase = s->phase;
    we.field_count = (uint16_t)s->field_count;
    bb_enc_schema_event(sink, &we);
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        bb_wire_field wf;
        wf.name = wire_view(f->name, true);
        wf.description = wire_view(f->description, f->has_description);
        wf.unit = wire_view(f->unit, f->has_unit);
        wf.sentinel = f->sentinel;
        wf.offset = f->offset;
        wf.width = f->width;
        wf.label_count = (uint16_t)f->label_count;
        wf.type = f->type;
        wf.type_arg = f->type_arg;
        wf.role = f->role;
        wf.has_sentinel = f->has_sentinel ? 1 : 0;
        bb_enc_schema_field(sink, &wf);
        for (size_t l = 0; l < f->label_count; l++)
            bb_enc_schema_label(sink, f->labels[l].value, wire_view(f->labels[l].label, true));
    }
}

/* ------------------------------------------------------------------ output plumbing */

static bool pwrite_all(int fd, const void *data, size_t len, uint64_t off) {
    const uint8_t *p = data;
    while (len) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return true;
}

typedef bb_section_ref section;

/* ------------------------------------------------------------------ default: re-pack */

typedef struct bucket {
    uint64_t instance_id;
    uint32_t shard_id;
    uint64_t bytes;    /* records' total size = new head */
    uint64_t capacity; /* power of two >= bytes */
    uint64_t region_off;
    uint64_t fill;     /* bytes written so far */
    uint8_t *buf;
    size_t blen;
} bucket;

typedef struct inst_out {
    uint64_t id;
    bool has_meta;
    bb_strview host;
    bb_rintern *intern;
    size_t nintern;
    u64map shards; /* shard id -> bucket index + 1 */
} inst_out;

static int cmp_bucket(const void *a, const void *b) {
    const bucket *x = a, *y = b;
    if (x->instance_id != y->instance_id) return x->instance_id < y->instance_id ? -1 : 1;
    return x->shard_id < y->shard_id ? -1 : x->shard_id > y->shard_id;
}

static int cmp_intern(const void *a, const void *b) {
    const bb_rintern *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static inst_out *find_inst(inst_out *v, size_t n, uint64_t id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

static bool flush_bucket(int fd, bucket *b) {
    if (!b->blen) return true;
    bool ok = pwrite_all(fd, b->buf, b->blen, b->region_off + b->fill);
    b->fill += b->blen;
    b->blen = 0;
    return ok;
}

static int merge_repack(bb_dump **dumps, size_t nd, const char *out) {
    int status = CLI_FAIL;
    bb_model *model = NULL;
    bb_model_iter *it = NULL;
    inst_out *insts = NULL;
    size_t ni = 0;
    bucket *bk = NULL;
    size_t nb = 0, bcap = 0;
    section *secs = NULL;
    bytes schema = {0}, env = {0}, *interns = NULL, *metas = NULL;
    bb_strview *views = NULL;
    size_t nviews = 0;
    cli_out o = {NULL, NULL, -1};
    bool opened = false;
    bb_error err;
    memset(&err, 0, sizeof err);

    if (bb_model_open(dumps, nd, true, &model, &err) != BB_OK) {
        cli_error("%s", err.message[0] ? err.message : bb_strerror(err.status));
        goto done;
    }

    /* Instances: the model's union, with intern tables and hosts gathered over the inputs. */
    ni = bb_model_instance_count(model);
    insts = calloc(ni ? ni : 1, sizeof *insts);
    if (!insts) goto oom;
    for (size_t i = 0; i < ni; i++) {
        insts[i].id = bb_model_instance(model, i)->instance_id;
        u64map_init(&insts[i].shards);
    }
    for (size_t i = 0; i < ni; i++) {
        inst_out *io = &insts[i];
        size_t total = 0;
        for (size_t d = 0; d < nd; d++) {
            const bb_rinstance *in = bb_dump_find_instance(dumps[d], io->id);
            if (in) total += in->intern_count;
        }
        io->intern = calloc(total ? total : 1, sizeof *io->intern);
        if (!io->intern) goto oom;
        u64map seen;
        u64map_init(&seen);
        for (size_t d = 0; d < nd; d++) {
            const bb_rinstance *in = bb_dump_find_instance(dumps[d], io->id);
            if (!in) continue;
            if (in->has_meta && !io->has_meta) {
                io->has_meta = true;
                io->host = in->host;
            }
            for (size_t k = 0; k < in->intern_count; k++) {
                const bb_rintern *e = &in->intern[k];
                const bb_rintern *prev = u64map_get(&seen, e->id);
                if (prev) {
                    if (prev->bytes.len != e->bytes.len ||
                        memcmp(prev->bytes.ptr, e->bytes.ptr, e->bytes.len))
                        cli_error("warning: instance %016llx: intern id %u differs between "
                                  "inputs; keeping the first",
                                  (unsigned long long)io->id, e->id);
                    continue;
                }
                if (!u64map_put(&seen, e->id, (void *)e)) {
                    u64map_free(&seen);
                    goto oom;
                }
                io->intern[io->nintern++] = *e;
            }
            /* every shard this input had, even empty */
            for (size_t k = 0; k < in->shard_count; k++) {
                uint32_t sid = in->shards[k].shard_id;
                if (u64map_get(&io->shards, sid)) continue;
                if (nb == bcap) {
                    bcap = bcap ? bcap * 2 : 16;
                    bucket *nbk = realloc(bk, bcap * sizeof *bk);
                    if (!nbk) {
                        u64map_free(&seen);
                        goto oom;
                    }
                    bk = nbk;
                }
                memset(&bk[nb], 0, sizeof bk[nb]);
                bk[nb].instance_id = io->id;
                bk[nb].shard_id = sid;
                nb++;
                if (!u64map_put(&io->shards, sid, (void *)1)) {
                    u64map_free(&seen);
                    goto oom;
                }
            }
        }
        u64map_free(&seen);
        qsort(io->intern, io->nintern, sizeof *io->intern, cmp_intern);
    }
    qsort(bk, nb, sizeof *bk, cmp_bucket);
    for (size_t i = 0; i < nb; i++) {
        inst_out *io = find_inst(insts, ni, bk[i].instance_id);
        if (!io || !u64map_put(&io->shards, bk[i].shard_id, (void *)(uintptr_t)(i + 1))) goto oom;
    }

    /* Pass 1: bytes per bucket. */
    if (bb_model_iter_new(model, &it) != BB_OK) goto oom;
    bb_mrecord r;
    inst_out *last = NULL;
    uint64_t nrec = 0;
    while (bb_model_next(it, &r)) {
        if (!last || last->id != r.rec.instance_id) last = find_inst(insts, ni, r.rec.instance_id);
        uintptr_t bi = last ? (uintptr_t)u64map_get(&last->shards, r.rec.shard_id) : 0;
        if (!bi) {
            cli_error("internal error: record of an unknown (instance, shard)");
            goto done;
        }
        bk[bi - 1].bytes += 18u + r.rec.schema->record_size;
        nrec++;
    }
    bb_model_iter_free(it);
    it = NULL;

    /* Views: each distinct text once, first occurrence order. */
    size_t nv_all = bb_model_view_count(model);
    views = calloc(nv_all ? nv_all : 1, sizeof *views);
    if (!views) goto oom;
    for (size_t i = 0; i < nv_all; i++) {
        bb_strview v = bb_model_view(model, i);
        bool dup = false;
        for (size_t k = 0; k < nviews && !dup; k++)
            dup = views[k].len == v.len && !memcmp(views[k].ptr, v.ptr, v.len);
        if (!dup) views[nviews++] = v;
    }

    /* Encode the small sections. */
    size_t nschemas = bb_model_schema_count(model);
    bb_enc_schema_count(bytes_sink(&schema), (uint32_t)nschemas);
    for (size_t i = 0; i < nschemas; i++) encode_schema(&schema, bb_model_schema(model, i));
    interns = calloc(ni ? ni : 1, sizeof *interns);
    metas = calloc(ni ? ni : 1, sizeof *metas);
    if (!interns || !metas) goto oom;
    size_t nmeta = 0;
    for (size_t i = 0; i < ni; i++) {
        bb_sink is = bytes_sink(&interns[i]);
        bb_enc_intern_header(is, insts[i].id, (uint32_t)insts[i].nintern);
        for (size_t k = 0; k < insts[i].nintern; k++)
            bb_enc_intern_entry(is, insts[i].intern[k].id, (uint32_t)insts[i].intern[k].bytes.len,
                                insts[i].intern[k].bytes.ptr);
        if (interns[i].oom) goto oom;
        if (insts[i].has_meta) {
            bb_enc_meta(bytes_sink(&metas[i]), insts[i].id, wire_view(insts[i].host, true));
            if (metas[i].oom) goto oom;
            nmeta++;
        }
    }
    if (schema.oom) goto oom;

    /* Section table: Schema, Intern per instance, Views, Shard per bucket, Meta per instance. */
    size_t ns = 1 + ni + nviews + nb + nmeta;
    if (ns > 65535) {
        cli_error("cannot write %s: %zu sections exceed the format's limit of 65535", out, ns);
        goto done;
    }
    secs = calloc(ns, sizeof *secs);
    if (!secs) goto oom;
    size_t s = 0;
    secs[s++] = (section){BB_SECTION_SCHEMA, schema.len, 0};
    for (size_t i = 0; i < ni; i++) secs[s++] = (section){BB_SECTION_INTERN, interns[i].len, 0};
    for (size_t i = 0; i < nviews; i++) secs[s++] = (section){BB_SECTION_VIEWS, views[i].len, 0};
    for (size_t i = 0; i < nb; i++) {
        uint64_t cap = 64;
        while (cap < bk[i].bytes) cap <<= 1;
        bk[i].capacity = cap;
        secs[s++] = (section){BB_SECTION_SHARD, BB_SHARD_HEADER_SIZE + cap, 0};
    }
    for (size_t i = 0; i < ni; i++)
        if (insts[i].has_meta) secs[s++] = (section){BB_SECTION_META, metas[i].len, 0};
    uint64_t total = bb_sections_layout(secs, ns);
    bb_enc_header(bytes_sink(&env), secs, ns);
    if (env.oom) goto oom;

    if (!cli_out_open(&o, out)) goto done;
    opened = true;
    if (ftruncate(o.fd, (off_t)total) != 0) goto io_err;
    if (!pwrite_all(o.fd, env.p, env.len, 0)) goto io_err;
    s = 0;
    if (!pwrite_all(o.fd, schema.p, schema.len, secs[s++].offset)) goto io_err;
    for (size_t i = 0; i < ni; i++)
        if (!pwrite_all(o.fd, interns[i].p, interns[i].len, secs[s++].offset)) goto io_err;
    for (size_t i = 0; i < nviews; i++)
        if (!pwrite_all(o.fd, views[i].ptr, views[i].len, secs[s++].offset)) goto io_err;
    size_t bufcap = nb ? (32u << 20) / nb : 65536;
    if (bufcap > 65536) bufcap = 65536;
    if (bufcap < 4096) bufcap = 4096;
    for (size_t i = 0; i < nb; i++) {
        uint8_t hdr[BB_SHARD_HEADER_SIZE];
        bb_buffer_sink hb = {hdr, sizeof hdr, 0};
        bb_enc_shard_header(bb_sink_buffer(&hb), bk[i].instance_id, bk[i].shard_id, bk[i].bytes,
                            bk[i].capacity);
        if (!pwrite_all(o.fd, hdr, sizeof hdr, secs[s].offset)) goto io_err;
        bk[i].region_off = secs[s].offset + BB_SHARD_HEADER_SIZE;
        s++;
        bk[i].buf = malloc(bufcap);
        if (!bk[i].buf) goto oom;
    }
    for (size_t i = 0; i < ni; i++)
        if (insts[i].has_meta && !pwrite_all(o.fd, metas[i].p, metas[i].len, secs[s++].offset))
            goto io_err;

    /* Pass 2: the records, in global order, appended to their bucket's new ring. */
    cli_progress prog;
    cli_progress_init(&prog, "merge");
    if (bb_model_iter_new(model, &it) != BB_OK) goto oom;
    last = NULL;
    uint64_t done_n = 0;
    while (bb_model_next(it, &r)) {
        if (!last || last->id != r.rec.instance_id) last = find_inst(insts, ni, r.rec.instance_id);
        bucket *b = &bk[(uintptr_t)u64map_get(&last->shards, r.rec.shard_id) - 1];
        size_t rs = r.rec.schema->record_size, n = 18 + rs;
        if (b->blen + n > bufcap && !flush_bucket(o.fd, b)) goto io_err;
        uint8_t *big = NULL;
        uint8_t *dst = n <= bufcap ? b->buf + b->blen : (big = malloc(n));
        if (!dst) goto oom;
        put_le64(dst, r.rec.ts);
        put_le64(dst + 8, r.rec.event_id);
        memcpy(dst + 16, r.rec.fields, rs);
        dst[16 + rs] = (uint8_t)(16 + rs);
        dst[17 + rs] = (uint8_t)((16 + rs) >> 8);
        if (n <= bufcap) {
            b->blen += n;
        } else {
            bool ok = pwrite_all(o.fd, dst, n, b->region_off + b->fill);
            b->fill += n;
            free(big);
            if (!ok) goto io_err;
        }
        if ((++done_n & 0xFFFF) == 0) cli_progress_update(done_n, nrec, &prog);
    }
    for (size_t i = 0; i < nb; i++)
        if (!flush_bucket(o.fd, &bk[i])) goto io_err;
    cli_progress_done(&prog);
    opened = false;
    if (!cli_out_commit(&o)) goto done;
    status = CLI_OK;
    goto done;

io_err:
    cli_error("cannot write %s: %s", out, strerror(errno));
    goto done;
oom:
    cli_error("out of memory");
done:
    if (opened) cli_out_abort(&o);
    if (it) bb_model_iter_free(it);
    for (size_t i = 0; i < nb; i++) free(bk[i].buf);
    free(bk);
    for (size_t i = 0; insts && i < ni; i++) {
        free(insts[i].intern);
        u64map_free(&insts[i].shards);
    }
    free(insts);
    for (size_t i = 0; interns && i < ni; i++) free(interns[i].p);
    for (size_t i = 0; metas && i < ni; i++) free(metas[i].p);
    free(interns);
    free(metas);
    free(views);
    free(secs);
    free(schema.p);
    free(env.p);
    if (model) bb_model_close(model);
    return status;
}

/* ------------------------------------------------------------------ --no-dedup: splice */

static bool copy_range(int in, uint64_t off, uint64_t len, int out, uint64_t dst, uint8_t *buf,
                       size_t bufsz) {
    while (len) {
        size_t n = len < bufsz ? (size_t)len : bufsz;
        ssize_t r = pread(in, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;
            return false;
        }
        if (!pwrite_all(out, buf, (size_t)r, dst)) return false;
        off += (uint64_t)r;
        dst += (uint64_t)r;
        len -= (uint64_t)r;
    }
    return true;
}

static int merge_splice(bb_dump **dumps, size_t nd, char *const *paths, const char *out) {
    int status = CLI_FAIL;
    bytes schema = {0}, env = {0};
    section *secs = NULL;
    u64map seen;
    u64map_init(&seen);
    cli_out o = {NULL, NULL, -1};
    bool opened = false;
    uint8_t *buf = NULL;
    int in = -1;

    /* Union registry: first input wins an id, file order. */
    size_t count = 0;
    bb_enc_schema_count(bytes_sink(&schema), 0); /* patched below */
    for (size_t d = 0; d < nd; d++)
        for (size_t i = 0; i < bb_dump_schema_count(dumps[d]); i++) {
            const bb_rschema *s = bb_dump_schema(dumps[d], i);
            if (u64map_get(&seen, s->id)) continue;
            if (!u64map_put(&seen, s->id, (void *)1)) goto oom;
            encode_schema(&schema, s);
            count++;
        }
    if (schema.oom) goto oom;
    bb_buffer_sink count_at = {schema.p, BB_SCHEMA_HEADER_SIZE, 0};
    bb_enc_schema_count(bb_sink_buffer(&count_at), (uint32_t)count);

    size_t ns = 1;
    for (size_t d = 0; d < nd; d++)
        for (size_t i = 0; i < bb_dump_section_count(dumps[d]); i++) {
            uint16_t kind;
            uint64_t off, len;
            bb_dump_section(dumps[d], i, &kind, &off, &len);
            if (kind != BB_SECTION_SCHEMA) ns++;
        }
    if (ns > 65535) {
        cli_error("cannot write %s: %zu sections exceed the format's limit of 65535", out, ns);
        goto done;
    }
    secs = calloc(ns, sizeof *secs);
    if (!secs) goto oom;
    size_t s = 0;
    secs[s++] = (section){BB_SECTION_SCHEMA, schema.len, 0};
    for (size_t d = 0; d < nd; d++)
        for (size_t i = 0; i < bb_dump_section_count(dumps[d]); i++) {
            uint16_t kind;
            uint64_t off, len;
            bb_dump_section(dumps[d], i, &kind, &off, &len);
            if (kind != BB_SECTION_SCHEMA) secs[s++] = (section){kind, len, 0};
        }
    uint64_t total = bb_sections_layout(secs, ns);
    bb_enc_header(bytes_sink(&env), secs, ns);
    buf = malloc(1 << 20);
    if (env.oom || !buf) goto oom;

    if (!cli_out_open(&o, out)) goto done;
    opened = true;
    if (ftruncate(o.fd, (off_t)total) != 0) goto io_err;
    if (!pwrite_all(o.fd, env.p, env.len, 0) ||
        !pwrite_all(o.fd, schema.p, schema.len, secs[0].offset))
        goto io_err;
    s = 1;
    for (size_t d = 0; d < nd; d++) {
        in = open(paths[d], O_RDONLY | O_CLOEXEC);
        if (in < 0) {
            cli_error("%s: %s", paths[d], strerror(errno));
            goto done;
        }
        for (size_t i = 0; i < bb_dump_section_count(dumps[d]); i++) {
            uint16_t kind;
            uint64_t off, len;
            bb_dump_section(dumps[d], i, &kind, &off, &len);
            if (kind == BB_SECTION_SCHEMA) continue;
            if (!copy_range(in, off, len, o.fd, secs[s++].offset, buf, 1 << 20)) goto io_err;
        }
        close(in);
        in = -1;
    }
    opened = false;
    if (!cli_out_commit(&o)) goto done;
    status = CLI_OK;
    goto done;

io_err:
    cli_error("cannot write %s: %s", out, strerror(errno));
    goto done;
oom:
    cli_error("out of memory");
done:
    if (in >= 0) close(in);
    if (opened) cli_out_abort(&o);
    free(buf);
    free(secs);
    free(schema.p);
    free(env.p);
    u64map_free(&seen);
    return status;
}

/* `backbeat merge`: see merge_help. */
int cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"no-dedup", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    bool dedup = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': dedup = false; break;
        case 'h': fputs(merge_help, stdout); return CLI_OK;
        case ':': return cli_usage_error("merge", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("merge", "unknown option '%s'", argv[optind - 1]);
        }
    }
    size_t nd = (size_t)(argc - optind);
    if (!nd) return cli_usage_error("merge", "no dump given");
    if (!out) return cli_usage_error("merge", "no output given (-o OUT.bb)");
    if (!strcmp(out, "-")) return cli_usage_error("merge", "merge writes a file; -o - is not supported");
    bb_dump **dumps;
    if (!cli_open_dumps(&argv[optind], nd, &dumps)) return CLI_FAIL;
    int st = dedup ? merge_repack(dumps, nd, out) : merge_splice(dumps, nd, &argv[optind], out);
    cli_close_dumps(dumps, nd);
    return st;
}
