/* log_site.c — log call sites (include/backbeat/log.h): each site named, described (the encoding
 * of docs/LOG_LINES.md) and registered as an event schema; the run-time log level and the hook a
 * recorded line at the dump level calls. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backbeat/log.h"
#include "capture/log_hook.h"

int bb__log_min = BB_INFO;
int bb__log_dump_min = BB_LOG_OFF + 1;

static const char *const level_names[] = {"trace", "debug", "info", "warn", "error", "fatal"};
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*dump_hook)(bb_recorder *rec, int level);

void bb_log_level_set(int level) {
    if (level < BB_TRACE) level = BB_TRACE;
    if (level > BB_LOG_OFF) level = BB_LOG_OFF;
    __atomic_store_n(&bb__log_min, level, __ATOMIC_RELAXED);
}

int bb_log_level(void) { return __atomic_load_n(&bb__log_min, __ATOMIC_RELAXED); }

const char *bb_log_level_name(int level) {
    return level >= BB_TRACE && level <= BB_FATAL ? level_names[level] : NULL;
}

bool bb_log_level_parse(const char *name, int *out) {
    if (!name) return false;
    for (int i = BB_TRACE; i <= BB_FATAL; i++) {
        if (strcasecmp(name, level_names[i]) == 0) return *out = i, true;
    }
    if (strcasecmp(name, "warning") == 0) return *out = BB_WARN, true;
    if (strcasecmp(name, "off") == 0 || strcasecmp(name, "none") == 0)
        return *out = BB_LOG_OFF, true;
    return false;
}

/* BACKBEAT_LOG_LEVEL applies to every recorder, so it is read when the library loads (a value
 * that is no level is reported by the global recorder's configuration, global_config_table.c). */
__attribute__((constructor)) static void log_level_from_env(void) {
    int level;
    if (bb_log_level_parse(getenv("BACKBEAT_LOG_LEVEL"), &level)) bb_log_level_set(level);
}

void bb__log_dump_hook_set(void (*hook)(bb_recorder *rec, int level)) {
    __atomic_store_n(&dump_hook, hook, __ATOMIC_RELEASE);
}

void bb__log_fired(bb_recorder *rec, int level) {
    void (*hook)(bb_recorder *, int) = __atomic_load_n(&dump_hook, __ATOMIC_ACQUIRE);
    if (hook) hook(rec, level);
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The tag that ends a site's name (docs/LOG_LINES.md): FNV-1a 64 over level, file, line,
 * function and format, each followed by a NUL, the file by its base name when it is absolute
 * (a build directory must not change the name), as written when relative. */
static uint32_t site_tag(const bb__log_site *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    char line[16];
    snprintf(line, sizeof line, "%u", (unsigned)s->line);
    const char *parts[] = {bb_log_level_name(s->level) ? bb_log_level_name(s->level) : "fatal",
                           s->file[0] == '/' ? base_name(s->file) : s->file, line, s->function,
                           s->format};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (const unsigned char *p = (const unsigned char *)parts[i];; p++) {
            h = (h ^ *p) * 0x100000001b3ull;
            if (!*p) break;
        }
    return (uint32_t)h;
}

/* Fill the site's name and description (docs/LOG_LINES.md); false when out of memory. The
 * name ends in the site's tag: an event id hashes the name and the fields, not the
 * description, so two sites with one base name, line and argument kinds (two directories, two
 * programs of a fleet) would otherwise share an id and one would be read with the other's
 * level and format. */
static bool site_describe(bb__log_site *s) {
    const char *lname = bb_log_level_name(s->level);
    char *name = NULL, *desc = NULL;
    if (asprintf(&name, "backbeat.log::%s:%u#%08x", base_name(s->file), (unsigned)s->line,
                 (unsigned)site_tag(s)) < 0)
        return false;
    if (asprintf(&desc, "backbeat-log 1\nlevel: %s\nfile: %s\nline: %u\nfunction: %s\nformat: %s",
                 lname ? lname : "fatal", s->file, (unsigned)s->line, s->function, s->format) < 0) {
        free(name);
        return false;
    }
    s->desc.name = name;
    s->desc.description = desc;
    return true;
}

/* The description of a bound BB_E field by the repr's wire type: the reader prints an
 * unlabelled value with the repr's sign (docs/LOG_LINES.md). */
static const char *enum_desc(uint8_t tag) {
    static const char *const names[] = {"enum uint8", "enum uint16", "enum uint32", "enum uint64",
                                        "enum int8",  "enum int16",  "enum int32",  "enum int64"};
    return tag <= BB_TYPE_I64 ? names[tag] : "enum uint64";
}

void bb__log_enum_bind(bb_field_desc *f, const bb_enum_label *labels, uint16_t count, uint8_t tag) {
    pthread_mutex_lock(&site_lock);
    if (!f->description) {
        f->labels = count ? labels : NULL;
        f->label_count = count;
        __atomic_store_n(&f->description, enum_desc(tag), __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&site_lock);
}

/* A site with a BB_E field not yet bound waits for its first recording (log_impl.h). */
static bool site_bound(const bb__log_site *s) {
    for (uint16_t i = 0; i < s->desc.field_count; i++)
        if (s->desc.fields[i].type == BB_TYPE_ENUM && !s->desc.fields[i].description) return false;
    return true;
}

/* Under site_lock. */
static void site_add(bb__log_site *s) {
    if (!s || s->desc.name || !site_bound(s)) return;
    if (site_describe(s)) bb_registry_add(&s->desc);
}

uint64_t bb__log_site_id(bb__log_site *s) {
    pthread_mutex_lock(&site_lock);
    site_add(s);
    pthread_mutex_unlock(&site_lock);
    /* Out of memory: id 0, an event no reader knows (its records are skipped). */
    return s->desc.name ? bb_event_id(&s->desc) : 0;
}

void bb__log_sites_add(bb__log_site *const *begin, bb__log_site *const *end) {
    pthread_mutex_lock(&site_lock);
    for (bb__log_site *const *p = begin; p && p < end; p++) site_add(*p);
    pthread_mutex_unlock(&site_lock);
}

void bb__log_sites_remove(bb__log_site *const *begin, bb__log_site *const *end) {
    pthread_mutex_lock(&site_lock);
    for (bb__log_site *const *p = begin; p && p < end; p++) {
        bb__log_site *s = *p;
        if (!s || !s->desc.name) continue;
        bb_registry_remove(&s->desc); /* keeps a copy of the schema for later dumps */
        free((char *)s->desc.name);
        free((char *)s->desc.description);
        s->desc.name = NULL;
        s->desc.description = NULL;
    }
    pthread_mutex_unlock(&site_lock);
}
