/* dataset_schema.c — DIR/_backbeat/schema.bb, the dataset schema (see convert/dataset.h): a `.bb`
 * dump with a Schema section (the union registry of everything appended so far) and one Views
 * section per distinct view set, and no instance or shard. Each append opens it as one more
 * input, so every part is written with the dataset's union schema; it is rewritten (aside,
 * then renamed) with the new union after the parts.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/dataset.h"
#include "read/u64map.h"
#include "format/sections.h"
#include "format/wire.h"
#include "parquet/buf.h"

/* bb_sink into a pq_buf. */
static int buf_write(void *ctx, const void *d, size_t n)
{
    pq_buf *b = ctx;
    pq_buf_put(b, d, n);
    return b->failed ? ENOMEM : 0;
}

static bb_wire_str wire(bb_strview v, bool present)
{
    bb_wire_str w = {v.ptr, (uint16_t)v.len, present ? 1 : 0};
    return w;
}

/* One schema entry, re-encoded from its decoded form. */
static void encode_schema(bb_sink sink, const bb_rschema *s)
{
    bb_wire_event we = {.id = s->id, .name = wire(s->name, true),
                        .description = wire(s->description, s->has_description),
                        .record_size = s->record_size, .phase = s->phase,
                        .field_count = (uint16_t)s->field_count};
    bb_enc_schema_event(sink, &we);
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        bb_wire_field wf = {.name = wire(f->name, true),
                            .description = wire(f->description, f->has_description),
                            .unit = wire(f->unit, f->has_unit), .sentinel = f->sentinel,
                            .offset = f->offset, .width = f->width,
                            .label_count = (uint16_t)f->label_count, .type = f->type,
                            .type_arg = f->type_arg, .role = f->role,
                            .has_sentinel = f->has_sentinel ? 1 : 0};
        bb_enc_schema_field(sink, &wf);
        for (size_t l = 0; l < f->label_count; l++)
            bb_enc_schema_label(sink, f->labels[l].value, wire(f->labels[l].label, true));
    }
}

/* The model's distinct view texts, first occurrence order, as indexes into view_of[1..];
 * *ns past the last. False when out of memory. */
static bool distinct_views(const bb_model *m, size_t *view_of, size_t *ns)
{
    size_t nv = bb_model_view_count(m);
    u64map_text *texts = calloc(nv ? nv : 1, sizeof *texts);
    u64map seen;
    u64map_init(&seen);
    bool ok = texts != NULL;
    for (size_t i = 0; ok && i < nv; i++) {
        bb_strview v = bb_model_view(m, i);
        texts[i] = (u64map_text){v.ptr, v.len};
        bool dup;
        ok = u64map_put_text(&seen, &texts[i], &dup);
        if (ok && !dup)
            view_of[(*ns)++] = i;
    }
    u64map_free(&seen);
    free(texts);
    return ok;
}

/* The whole dump into `out`; false when out of memory or past the format's section count. */
static bool encode(const bb_model *m, pq_buf *out)
{
    pq_buf schema = {0};
    bb_sink ss = {buf_write, &schema};
    bb_enc_schema_count(ss, (uint32_t)bb_model_schema_count(m));
    for (size_t i = 0; i < bb_model_schema_count(m); i++)
        encode_schema(ss, bb_model_schema(m, i));
    size_t nv = bb_model_view_count(m), ns = 1;
    bb_section_ref *secs = calloc(nv + 1, sizeof *secs);
    size_t *view_of = calloc(nv + 1, sizeof *view_of);
    bool ok = secs && view_of && !schema.failed && distinct_views(m, view_of, &ns);
    if (ok) {
        secs[0] = (bb_section_ref){BB_SECTION_SCHEMA, schema.len, 0};
        for (size_t i = 1; i < ns; i++)
            secs[i] = (bb_section_ref){BB_SECTION_VIEWS, bb_model_view(m, view_of[i]).len, 0};
        ok = ns <= 65535;
    }
    if (ok) {
        bb_sections_layout(secs, ns);
        bb_sink os = {buf_write, out};
        bb_enc_header(os, secs, ns);
        for (size_t i = 0; i < ns && !out->failed; i++) {
            while (out->len < secs[i].offset && !out->failed)
                pq_buf_byte(out, 0);
            if (i == 0)
                pq_buf_put(out, schema.data, schema.len);
            else
                pq_buf_put(out, bb_model_view(m, view_of[i]).ptr, secs[i].len);
        }
        ok = !out->failed;
    }
    free(secs);
    free(view_of);
    pq_buf_free(&schema);
    return ok;
}

bool ds_schema_encode(const char *dir, const bb_model *model, uint8_t **data, size_t *len,
                      bb_error *err)
{
    pq_buf b = {0};
    *data = NULL;
    *len = 0;
    if (!encode(model, &b)) {
        ds_err(err, "cannot write %s/_backbeat/schema.bb: out of memory (or too many view sets)",
               dir);
        pq_buf_free(&b);
        return false;
    }
    *data = b.data;
    *len = b.len;
    return true;
}
