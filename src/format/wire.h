/* wire.h — the constants of the `.bb` format v1 (FORMAT.md), their one home: the envelope's
 * magic, version and flags, the section kinds, and the fixed sizes of headers. The encoder
 * (sections.h), the reader (src/read) and merge all take them from here; the record frame's
 * constants are in include/backbeat/detail/frame.h (the inline fast path needs them). */
/* SPDX-License-Identifier: MIT */
#ifndef BB_FORMAT_WIRE_H
#define BB_FORMAT_WIRE_H

/* Envelope: "BACKBEAT", u16 format, u16 flags, u16 section_count, u16 reserved. */
#define BB_DUMP_MAGIC "BACKBEAT"
#define BB_DUMP_MAGIC_SIZE 8u
#define BB_DUMP_FORMAT_VERSION 1u
#define BB_DUMP_FLAG_LITTLE_ENDIAN 1u

/* Section kinds. */
enum {
    BB_SECTION_SCHEMA = 0,
    BB_SECTION_INTERN = 1,
    BB_SECTION_SHARD = 2,
    BB_SECTION_META = 3,
    BB_SECTION_VIEWS = 4,
    /* backbeat's extension of v1, not the reference's (docs/PROCESS_SECTION.md): the OS
     * process of an instance. A v1 reader skips it like any unknown kind. */
    BB_SECTION_PROCESS = 5
};

/* Fixed sizes in bytes. */
#define BB_DUMP_ENVELOPE_SIZE 16u      /* magic, format, flags, section_count, reserved */
#define BB_DUMP_TABLE_ENTRY_SIZE 20u   /* u16 kind, u16 reserved, u64 offset, u64 len */
#define BB_SCHEMA_HEADER_SIZE 4u       /* u32 count */
#define BB_INTERN_HEADER_SIZE 12u      /* u64 instance_id, u32 count */
#define BB_INTERN_ENTRY_HEADER_SIZE 8u /* u32 id, u32 length (the bytes follow) */
/* The string id 0 (BB_INTERN_FULL_ID: an intern call made when the table was full) resolves
 * to: the first intern entry of a dump whose producer handed it out (a live dump, or a
 * recovered ring file whose header says so). A convention of this producer, not the format's. */
#define BB_INTERN_FULL_TEXT "<backbeat: intern table full>"
#define BB_SHARD_HEADER_SIZE 28u
/* Process section: u64 instance_id, u64 pid, u64 start_ns, str program (at least 26 bytes;
 * bytes past the program are room for later fields, skipped by this reader). */
#define BB_PROCESS_MIN_SIZE 26u /* u64 instance_id, u32 shard_id, u64 head, u64 capacity */

#endif /* BB_FORMAT_WIRE_H */
