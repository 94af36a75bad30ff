/* backbeat/detail/abi.h — the layout tag of the structures user code compiles in.
 *
 * Three things are baked into every instrumented program and plugin by the headers: the event
 * and view descriptors the BB_EVENT / BB_VIEWS macros emit as static data (schema.h,
 * registry.h), the recorder's hot view the inline fast path reads (detail/recorder_inline.h),
 * and the per-thread in-flight slot it writes. Each is marked "ABI" where it is declared.
 * BB__ABI_LAYOUT names their layout; it changes whenever any of them does (and with it the
 * soname's major number).
 *
 * How the library checks it, where it first meets each structure:
 *   - descriptors carry the tag in their first member (`abi`); registration (bb_registry_add,
 *     bb_views_add), the function forms of recording and the lazy id refuse a descriptor with
 *     another tag, with one message on stderr per process, so it is never misread;
 *   - the recorder's enable word holds the tag itself while capture is on, and the inline
 *     fast path compares it with the tag it was compiled with: code built against other headers
 *     sees every recorder as disabled, and so never reads the hot view or writes a slot
 *     through a layout it does not share. The cost is the same one load and compare.
 *
 * Machinery: may change in any release. Freestanding, C and C++.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DETAIL_ABI_H
#define BACKBEAT_DETAIL_ABI_H

/* 'b' 'b' then the layout revision. Only the test suite overrides it (to build a plugin as if
 * against other headers). */
#ifndef BB__ABI_LAYOUT
#define BB__ABI_LAYOUT 0x62620003u
#endif

#endif /* BACKBEAT_DETAIL_ABI_H */
