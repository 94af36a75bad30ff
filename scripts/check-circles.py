#!/usr/bin/env python3
# check-circles.py — the tree's shape rules, checked on whatever tree it runs in:
#   circles: no two .c files under src/ call each other (a function or object defined in A
#            used by B and one defined in B used by A), nor any longer loop of files (A uses B
#            uses C uses A). The symbols come from the build's
#            object files (`nm`: defined vs undefined globals per object), found through the
#            build's compile_commands.json; static and static-inline functions never make an
#            edge, so only real cross-file references count.
#   includes: the `#include "..."` lines of every src/ and include/ file (.c, .h), resolved as
#            the compiler does (the including file's folder, then src/, then include/), make a
#            graph of files: no header reaches itself through includes (a header circle; a .c
#            including its own header is none), and, between rooms (the folders under src/,
#            plus `include` for the public headers), every include follows the arrows declared
#            in docs/ARCHITECTURE.md's "Rooms and arrows" table — the table is the only copy:
#            upward:  src/X/... may include "Y/..." only if Y is in X's "may include" cell
#                     (every room may include the public headers, include/backbeat/);
#            private: no file includes another room's private header (*_priv.h, *_internal.h);
#            room circles: a loop of rooms through includes (each one is also an upward include).
#   length:  no function under src/ (.c and .h) is over --max-lines lines (100), from the line
#            of its name to its closing brace, found by a brace-counting parser of top-level
#            bodies over the text with comments, literals and preprocessor lines blanked.
#   prefixes (only with --prefixes or --only prefixes): every global a room's objects define
#            starts with the room's prefix(es) from the table's "prefix" cell, or is a public
#            `bb_` name that a header under include/ declares.
#   files (only with --files or --only files): every .c/.h under src/ has its bullet under its
#            room in the document's "Rooms, file by file" section, and every bullet its file;
#            no two rooms hold files of one name (a.c in one, a.c or a.h in another).
# Usage: check-circles.py --build BUILD_DIR [--src SRC_DIR] [--include DIR] [--arch DOC]
#                         [--allow FILE] [--max-lines N] [--prefixes] [--files]
#                         [--only circles|includes|length|prefixes|files] [--top N]
# The allow file lists what another change is removing, one a line: "a.c <-> b.c" (a file
# circle), "header: a.h <-> b.h", "upward: src/a/f.c -> b/g.h", "private: src/a/f.c -> b/g_priv.h",
# "prefix: symbol"; each one no longer found is reported (delete its line).
# Exit 0 when clean, 1 on a violation (each printed), 2 when it cannot check (no build, no nm,
# a file it cannot parse, no or a malformed arrows table). ctest runs it as `arch_circles`
# (tests/arch.cmake); tests/arch/check_circles_test.py is its self-test.
# SPDX-License-Identifier: MIT
import argparse
import json
import os
import re
import subprocess
import sys


def fail_setup(msg):
    print("check-circles: " + msg, file=sys.stderr)
    sys.exit(2)


# ---- circles ---------------------------------------------------------------------------------

def src_objects(build, src):
    """{source path relative to src: [object files]} for every src/ .c file the build compiles."""
    cc_path = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(cc_path):
        fail_setup(cc_path + " is missing: configure the build with CMAKE_EXPORT_COMPILE_COMMANDS=ON")
    with open(cc_path) as f:
        entries = json.load(f)
    objs = {}
    for e in entries:
        file = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if not file.startswith(src + os.sep) or not file.endswith(".c"):
            continue
        out = e.get("output")
        if out is None:  # older CMake: take it from the command line
            args = e.get("arguments") or e["command"].split()
            out = args[args.index("-o") + 1] if "-o" in args else None
        if out is None:
            continue
        obj = os.path.join(e["directory"], out)
        objs.setdefault(os.path.relpath(file, src), []).append(obj)
    return objs


def object_symbols(objs):
    """{object: (defined globals, undefined)} of the object files (one `nm` run)."""
    try:
        out = subprocess.run(["nm", "-P", "-A"] + objs, check=True, capture_output=True,
                             text=True).stdout
    except FileNotFoundError:
        fail_setup("nm not found (binutils)")
    except subprocess.CalledProcessError as e:
        fail_setup("nm: " + e.stderr.strip())
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, sep, rest = line.rpartition(": ")
        parts = rest.split()
        if not sep or obj not in syms or len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):  # undefined (v, w: weak undefined)
            syms[obj][1].add(name)
        elif kind.isupper() and kind not in ("A", "N"):  # global (or weak) definitions
            syms[obj][0].add(name)
    return syms


def find_edges(build, src):
    objs = src_objects(build, src)
    if not objs:
        fail_setup("no src/ sources in %s/compile_commands.json" % build)
    defs, uses, defined = {}, {}, {}
    present = {s: [p for p in paths if os.path.isfile(p)] for s, paths in objs.items()}
    missing = sorted(s for s, paths in present.items() if not paths)
    syms = object_symbols(sorted(p for paths in present.values() for p in paths))
    for source, paths in sorted(present.items()):
        if not paths:
            continue
        d_all, u_all = set(), set()
        for p in paths:  # a file compiled twice (other flags): the union
            d, u = syms[p]
            d_all |= d
            u_all |= u
        uses[source] = u_all
        defined[source] = d_all
        for s in d_all:
            defs.setdefault(s, set()).add(source)
    if missing:
        fail_setup("not built yet (no object file): " + ", ".join(missing) + "; build " + build)
    edges = {}  # (user, definer) -> symbols
    for source, used in uses.items():
        for s in used:
            for definer in defs.get(s, ()):
                if definer != source:
                    edges.setdefault((source, definer), set()).add(s)
    return sorted(uses), edges, defined


ALLOW_KINDS = ("circle", "header", "upward", "private", "prefix")


def load_allow(path):
    """{kind: set of keys}: 'a.c <-> b.c' (circle: a sorted pair relative to src/),
    'header: a.h <-> b.h' (a sorted pair as printed), 'upward: src/a/f.c -> b/g.h' and
    'private: ...' (file as printed, include as written), 'prefix: symbol'."""
    allow = {k: set() for k in ALLOW_KINDS}
    if not path:
        return allow
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            kind, sep, rest = line.partition(":")
            kind = kind.strip()
            if not sep or kind not in ALLOW_KINDS[1:]:
                kind, rest = "circle", line
            rest = rest.strip()
            if kind in ("circle", "header"):
                parts = [x.strip() for x in rest.split("<->")]
                if len(parts) != 2 or not all(parts):
                    fail_setup("%s:%d: expected 'a <-> b'" % (path, n))
                allow[kind].add(tuple(sorted(parts)))
            elif kind in ("upward", "private"):
                parts = [x.strip() for x in rest.split("->")]
                if len(parts) != 2 or not all(parts):
                    fail_setup("%s:%d: expected '%s: src/room/file -> room/header.h'"
                               % (path, n, kind))
                allow[kind].add(tuple(parts))
            else:
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.$]*", rest):
                    fail_setup("%s:%d: expected 'prefix: symbol'" % (path, n))
                allow[kind].add(rest)
    return allow


def components(files, edges):
    """The strongly connected components of more than one file (Tarjan, iterative)."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    index, low, stack, on, comps, n = {}, {}, [], set(), [], 0
    for root in files:
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps)


def print_component(comp, edges, tag):
    if len(comp) == 2:
        print("%s: src/%s <-> src/%s" % (tag, comp[0], comp[1]))
    else:
        print("%s: %d files reach each other: %s" % (tag, len(comp),
                                                    ", ".join("src/" + f for f in comp)))
    for (a, b), syms in sorted(edges.items()):
        if a in comp and b in comp:
            print("    src/%s uses src/%s's %s" % (a, b, ", ".join(sorted(syms))))


def check_circles(files, edges, allow, allow_file):
    allow = allow["circle"]
    bad = 0
    seen_allowed = set()
    for comp in components(files, edges):
        tag = "circle"
        if len(comp) == 2 and tuple(comp) in allow:
            tag = "circle (allowed, being removed)"
            seen_allowed.add(tuple(comp))
        else:
            bad += 1
        print_component(comp, edges, tag)
    for pair in sorted(allow - seen_allowed):
        print("note: allowed pair src/%s <-> src/%s is no longer a circle: drop it from %s"
              % (pair[0], pair[1], allow_file))
    print("circles: %d files, %d file-to-file edges, %d circle(s)%s"
          % (len(files), len(edges), bad, " (plus %d allowed)" % len(seen_allowed)
             if seen_allowed else ""))
    return bad


# ---- the arrows table ------------------------------------------------------------------------

TABLE_HEADING = "## Rooms and arrows"
TABLE_COLUMNS = ["room", "may include", "prefix", "question"]
PUBLIC_ROOM = "include"  # the public headers, include/; every room may include them
NONE_CELLS = ("", "-", "—", "–", "(none)", "none", "nothing")


def table_error(doc, msg):
    fail_setup("%s: the \"%s\" table: %s" % (doc, TABLE_HEADING[3:], msg))


def table_cells(line):
    line = line.strip()
    if not (line.startswith("|") and line.endswith("|")) or len(line) < 2:
        return None
    return [c.strip() for c in line[1:-1].split("|")]


def parse_rooms(doc):
    """{room: {"may": set of rooms, "prefixes": [prefix], "line": n}} from the first Markdown
    table under the heading TABLE_HEADING of `doc`; any flaw is a setup error (exit 2)."""
    try:
        with open(doc, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail_setup("cannot read the architecture document: %s" % e)
    start = next((i for i, l in enumerate(lines) if l.strip() == TABLE_HEADING), None)
    if start is None:
        fail_setup("%s: no \"%s\" section (the declared room order the check reads)"
                   % (doc, TABLE_HEADING))
    i = start + 1
    while i < len(lines) and not lines[i].lstrip().startswith("|"):
        if lines[i].startswith("#"):
            table_error(doc, "the section holds no table")
        i += 1
    if i >= len(lines):
        table_error(doc, "the section holds no table")
    head = [c.lower() for c in (table_cells(lines[i]) or [])]
    if head != TABLE_COLUMNS:
        table_error(doc, "line %d: the columns must be `%s`, not `%s`"
                    % (i + 1, " | ".join(TABLE_COLUMNS), " | ".join(head)))
    sep = table_cells(lines[i + 1]) if i + 1 < len(lines) else None
    if not sep or len(sep) != len(TABLE_COLUMNS) or not all(re.fullmatch(r":?-{3,}:?", c)
                                                            for c in sep):
        table_error(doc, "line %d: expected the separator row | --- | ... |" % (i + 2))
    rooms = {}
    for n in range(i + 2, len(lines)):
        if not lines[n].strip():
            break
        cells = table_cells(lines[n])
        if cells is None:
            break
        where = "line %d: " % (n + 1)
        if len(cells) != len(TABLE_COLUMNS):
            table_error(doc, where + "%d cells, expected %d" % (len(cells), len(TABLE_COLUMNS)))
        room = cells[0].strip("`* ")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", room):
            table_error(doc, where + "`%s` is not a room name (a folder under src/)" % cells[0])
        if room in rooms:
            table_error(doc, where + "room `%s` has two rows" % room)
        may = set()
        if cells[1].strip("`* ").lower() not in NONE_CELLS:
            for name in cells[1].split(","):
                name = name.strip().strip("`* ")
                if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
                    table_error(doc, where + "`%s` in \"may include\" is not a room name" % name)
                may.add(name)
        prefixes = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[2])
        if not prefixes:
            table_error(doc, where + "no prefix (`name_`, in backquotes) for room `%s`" % room)
        if not cells[3]:
            table_error(doc, where + "room `%s` has no question" % room)
        rooms[room] = {"may": may, "prefixes": prefixes, "line": n + 1}
    if not rooms:
        table_error(doc, "no rows")
    for room, r in sorted(rooms.items()):
        for m in sorted(r["may"]):
            if m == room:
                table_error(doc, "line %d: room `%s` lists itself (a room always may)"
                            % (r["line"], room))
            if m not in rooms:
                table_error(doc, "line %d: room `%s` may include `%s`, which has no row"
                            % (r["line"], room, m))
    loops = components(sorted(rooms), {(a, b): None for a in rooms for b in rooms[a]["may"]})
    if loops:
        table_error(doc, "the declared arrows go round: " + "; ".join(", ".join(c) for c in loops))
    return rooms


def check_rooms_match(rooms, doc, src, incdir):
    """Every folder under src/ has a row and every row a folder (`include`: the public ones)."""
    folders = set()
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isdir(path):
            folders.add(name)
        elif name.endswith((".c", ".h")):
            fail_setup("src/%s is in no room: every source lives in a folder under src/" % name)
    for f in sorted(folders - set(rooms)):
        table_error(doc, "src/%s/ has no row (every room under src/ needs one)" % f)
    for r in sorted(set(rooms) - folders):
        if r == PUBLIC_ROOM and (os.path.isdir(incdir) or not os.path.exists(incdir)):
            continue
        table_error(doc, "line %d: room `%s` names no folder under src/"
                    % (rooms[r]["line"], r))
    if PUBLIC_ROOM in folders:
        table_error(doc, "src/%s/ clashes with the public headers' room name" % PUBLIC_ROOM)


# ---- the file list ---------------------------------------------------------------------------

FILES_HEADING = "## Rooms, file by file"
FILE_BULLET_RE = re.compile(r"^\s*[-*]\s+((?:`[^`/]+\.[ch]`(?:\s*,\s*|\s+and\s+)?)+)\s*:")
ROOM_HEADING_RE = re.compile(r"^###\s+`?([A-Za-z0-9_.-]+)/?`?\s*$")


def parse_file_list(doc):
    """{room: {file name: line}} from the bullets "- `a.c`, `a.h`: role" under each
    "### `room/`" of the section FILES_HEADING; no section is a setup error (exit 2)."""
    try:
        with open(doc, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail_setup("cannot read the architecture document: %s" % e)
    start = next((i for i, l in enumerate(lines) if l.strip() == FILES_HEADING), None)
    if start is None:
        fail_setup("%s: no \"%s\" section (every source file's role, which the check reads)"
                   % (doc, FILES_HEADING))
    listed, room = {}, None
    for n in range(start + 1, len(lines)):
        line = lines[n]
        if line.startswith("## "):
            break
        m = ROOM_HEADING_RE.match(line)
        if m:
            room = m.group(1)
            listed.setdefault(room, {})
            continue
        b = FILE_BULLET_RE.match(line)
        if b and room:
            for name in re.findall(r"`([^`]+)`", b.group(1)):
                listed[room][name] = n + 1
    return listed


def check_files(doc, src):
    """Every .c/.h under src/ is listed under its room in the document, and every listed file
    exists: the file list cannot drift from the tree."""
    listed = parse_file_list(doc)
    bad = 0
    for room in sorted(os.listdir(src)):
        folder = os.path.join(src, room)
        if not os.path.isdir(folder):
            continue
        present = {f for f in os.listdir(folder) if f.endswith((".c", ".h"))}
        names = listed.get(room, {})
        for f in sorted(present - set(names)):
            print("unlisted: src/%s/%s has no line in %s \"%s\" (### `%s/`)"
                  % (room, f, os.path.basename(doc), FILES_HEADING[3:], room))
            bad += 1
        for f in sorted(set(names) - present):
            print("stale: %s line %d lists %s/%s, which does not exist"
                  % (os.path.basename(doc), names[f], room, f))
            bad += 1
    rooms_of = {}
    for room in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, room)):
            for f in os.listdir(os.path.join(src, room)):
                if f.endswith((".c", ".h")):
                    rooms_of.setdefault(f[:-2], set()).add(room)
    for stem, where in sorted(rooms_of.items()):
        if len(where) > 1:
            print("name: %s.c/.h in %s (one name, one file: rename all but one)"
                  % (stem, ", ".join(sorted(r + "/" for r in where))))
            bad += 1
    for room in sorted(set(listed) - set(os.listdir(src))):
        print("stale: %s lists a room %s/ with no folder under src/" % (os.path.basename(doc), room))
        bad += 1
    return bad



# ---- includes --------------------------------------------------------------------------------

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def strip_comments(text):
    """text with its comments turned into spaces; literals and directives kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(top):
    found = []
    if not os.path.isdir(top):
        return found
    for root, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                found.append(os.path.join(root, name))
    return found


def include_graph(src, incdir):
    """[(file, line, written, target or None)] for every quoted include of a src/ or include/
    file; files and targets are real paths."""
    out = []
    for path in source_files(src) + source_files(incdir):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for m in INCLUDE_RE.finditer(text):
            written = m.group(1)
            target = None
            for base in (os.path.dirname(path), src, incdir):
                cand = os.path.realpath(os.path.join(base, written))
                if os.path.isfile(cand):
                    target = cand
                    break
            out.append((path, text.count("\n", 0, m.start()) + 1, written, target))
    return out


def room_of(path, src, incdir):
    if path.startswith(src + os.sep):
        return os.path.relpath(path, src).split(os.sep)[0]
    if path.startswith(incdir + os.sep):
        return PUBLIC_ROOM
    return None


def is_private(path):
    return os.path.basename(path).endswith(("_priv.h", "_internal.h"))


def check_includes(src, incdir, rooms, allow, allow_file):
    top = os.path.dirname(src)

    def show(p):
        return os.path.relpath(p, top)

    incs = include_graph(src, incdir)
    counts = {"header": 0, "room": 0, "upward": 0, "private": 0}
    seen = {k: set() for k in ("header", "upward", "private")}
    files = sorted({show(p) for p in source_files(src) + source_files(incdir)})
    edges, room_edges = {}, {}
    unresolved = []
    for path, line, written, target in incs:
        if target is None:
            unresolved.append((path, line, written))
            continue
        a, b = show(path), show(target)
        edges.setdefault((a, b), set()).add(written)
        ra, rb = room_of(path, src, incdir), room_of(target, src, incdir)
        if ra is None or rb is None or ra == rb:
            continue
        room_edges.setdefault((ra, rb), []).append((a, written))
        problems = []
        if rb != PUBLIC_ROOM and rb not in rooms.get(ra, {"may": ()})["may"]:
            problems.append(("upward", "upward: %s includes %s (%s may not include %s)"
                             % (a, written, ra, rb)))
        if is_private(target):
            problems.append(("private", "private: %s includes %s (private to %s)"
                             % (a, written, rb)))
        for kind, msg in problems:
            if (a, written) in allow[kind]:
                seen[kind].add((a, written))
                print(msg + " (allowed, being removed)")
            else:
                counts[kind] += 1
                print(msg)
    for path, line, written in unresolved:
        first = written.split("/")[0]
        if first in rooms and first != PUBLIC_ROOM:
            fail_setup("%s:%d: #include \"%s\" names no file" % (show(path), line, written))
    # header circles: loops of files through includes (a self-include is one too)
    for (a, b), how in sorted(edges.items()):
        if a == b:
            counts["header"] += 1
            print("header circle: %s includes itself" % a)
    for comp in components(files, edges):
        if len(comp) == 2 and tuple(comp) in allow["header"]:
            seen["header"].add(tuple(comp))
            tag = "header circle (allowed, being removed)"
        else:
            counts["header"] += 1
            tag = "header circle"
        if len(comp) == 2:
            print("%s: %s <-> %s" % (tag, comp[0], comp[1]))
        else:
            print("%s: %d files include each other: %s" % (tag, len(comp), ", ".join(comp)))
        for (a, b), how in sorted(edges.items()):
            if a in comp and b in comp:
                print("    %s includes %s" % (a, ", ".join(sorted(how))))
    # room circles: every one needs an arrow against the (acyclic) table, also reported above
    for comp in components(sorted(rooms), room_edges):
        ups = [(a, w) for (ra, rb), inc in sorted(room_edges.items())
               if ra in comp and rb in comp for a, w in inc
               if rb != PUBLIC_ROOM and rb not in rooms.get(ra, {"may": ()})["may"]]
        allowed = ups and all(u in allow["upward"] for u in ups)
        if not allowed:
            counts["room"] += 1
        print("room circle%s: %s reach each other through includes"
              % (" (allowed, being removed)" if allowed else "", ", ".join(comp)))
        for (ra, rb), inc in sorted(room_edges.items()):
            if ra in comp and rb in comp:
                print("    %s -> %s: %s" % (ra, rb, ", ".join(sorted({"%s (%s)" % (a, w)
                                                                     for a, w in inc}))))
    for kind in ("header", "upward", "private"):
        for key in sorted(allow[kind] - seen[kind]):
            sep = " <-> " if kind == "header" else " -> "
            print("note: allowed %s %s is no longer found: drop it from %s"
                  % (kind, sep.join(key), allow_file))
    print("includes: %d files, %d includes, %d between rooms; %d header circle(s), "
          "%d room circle(s), %d upward, %d private%s"
          % (len(files), len(incs), sum(len(v) for v in room_edges.values()), counts["header"],
             counts["room"], counts["upward"], counts["private"],
             " (plus %d allowed)" % sum(len(v) for v in seen.values())
             if any(seen.values()) else ""))
    return counts, sum(len(v) for v in seen.values())


# ---- prefixes --------------------------------------------------------------------------------

def check_prefixes(defined, src, incdir, rooms, allow, allow_file):
    """Every global a room's objects define starts with one of the room's prefixes, or is a
    public bb_ name declared in a header under include/."""
    public = set()
    for path in source_files(incdir):
        with open(path, encoding="utf-8", errors="replace") as f:
            public |= set(re.findall(r"\bbb_[A-Za-z0-9_]*", strip_comments(f.read())))
    bad, seen, total = 0, set(), 0
    for source, syms in sorted(defined.items()):
        room = source.split(os.sep)[0]
        if room not in rooms:
            continue
        prefixes = rooms[room]["prefixes"]
        for sym in sorted(syms):
            total += 1
            if sym.startswith(tuple(prefixes)) or sym == "main" or sym.startswith("__"):
                continue
            if sym.startswith("bb_") and not sym.startswith("bb__") and sym in public:
                continue
            why = ("a bb_ name no header under include/ declares"
                   if sym.startswith("bb_") and not sym.startswith("bb__") else "")
            msg = "prefix: src/%s defines %s (%s: %s%s)" % (
                source, sym, room, ", ".join(prefixes),
                "; " + why if why else ", or a public bb_ name declared in include/")
            if sym in allow["prefix"]:
                seen.add(sym)
                print(msg + " (allowed, being removed)")
            else:
                bad += 1
                print(msg)
    for sym in sorted(allow["prefix"] - seen):
        print("note: allowed prefix %s is no longer found: drop it from %s" % (sym, allow_file))
    print("prefixes: %d global symbols, %d without their room's prefix" % (total, bad))
    return bad


# ---- function length -------------------------------------------------------------------------

def blank_c(text):
    """text with comments, string and char literals and preprocessor lines turned into spaces
    (newlines kept, so offsets and line numbers stay)."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            i += 1
            continue
        if at_line_start and c == "#":  # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                if text[i:i + 2] == "/*":  # a comment inside a directive may span lines
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                    for k in range(i, j):
                        if out[k] != "\n":
                            out[k] = " "
                    i = j
                    continue
                out[i] = " "
                i += 1
            continue
        at_line_start = False
        if c == "\n":
            at_line_start = True
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def function_name_at(clean, close_paren):
    """The identifier before the '(' matching the ')' at close_paren, and its offset."""
    depth, i = 0, close_paren
    while i >= 0:
        if clean[i] == ")":
            depth += 1
        elif clean[i] == "(":
            depth -= 1
            if depth == 0:
                break
        i -= 1
    j = i - 1
    while j >= 0 and clean[j].isspace():
        j -= 1
    end = j + 1
    while j >= 0 and (clean[j].isalnum() or clean[j] == "_"):
        j -= 1
    return clean[j + 1:end], j + 1


def functions(path):
    """[(name, first line, last line)] of the function bodies at file scope of one C file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        clean = blank_c(f.read())
    found = []
    depth, start = 0, None
    for i, c in enumerate(clean):
        if c == "{":
            if depth == 0:
                j = i - 1
                while j >= 0 and clean[j].isspace():
                    j -= 1
                start = None
                if j >= 0 and clean[j] == ")":
                    name, at = function_name_at(clean, j)
                    if name and name not in ("if", "for", "while", "switch", "sizeof"):
                        start = (name, clean.count("\n", 0, at) + 1)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                fail_setup("%s: unbalanced braces (line %d)" % (path, clean.count("\n", 0, i) + 1))
            if depth == 0 and start:
                found.append((start[0], start[1], clean.count("\n", 0, i) + 1))
                start = None
    if depth != 0:
        fail_setup("%s: unbalanced braces at the end (conditional code?)" % path)
    return found


def check_length(src, max_lines, top):
    allfns = []
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                for fn, first, last in functions(path):
                    allfns.append((last - first + 1, os.path.relpath(path, os.path.dirname(src)),
                                   first, fn))
    allfns.sort(key=lambda t: (-t[0], t[1], t[2]))
    bad = [t for t in allfns if t[0] > max_lines]
    for n, path, line, fn in bad:
        print("too long: %s:%d %s is %d lines (limit %d)" % (path, line, fn, n, max_lines))
    for n, path, line, fn in allfns[:top]:
        print("    %4d lines  %s:%d %s" % (n, path, line, fn))
    lengths = sorted(t[0] for t in allfns)
    median = lengths[len(lengths) // 2] if lengths else 0
    print("length: %d functions, median %d lines, longest %d, %d over %d"
          % (len(allfns), median, lengths[-1] if lengths else 0, len(bad), max_lines))
    return len(bad), lengths[-1] if lengths else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="No circles between src/ files or headers, includes "
                                 "that follow the declared room order, no long functions.")
    ap.add_argument("--build", help="a configured and built build directory (for circles)")
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--include", help="the public headers (default: SRC/../include)")
    ap.add_argument("--arch", help="the document with the \"Rooms and arrows\" table "
                    "(default: SRC/../docs/ARCHITECTURE.md)")
    ap.add_argument("--allow", help="file of what is being removed: 'a.c <-> b.c', "
                    "'header: a.h <-> b.h', 'upward: src/a/f.c -> b/g.h', 'private: ...', "
                    "'prefix: symbol'")
    ap.add_argument("--max-lines", type=int, default=100)
    ap.add_argument("--only", choices=("circles", "includes", "length", "prefixes", "files"))
    ap.add_argument("--prefixes", action="store_true",
                    help="also check the room prefixes of the objects' global symbols")
    ap.add_argument("--files", action="store_true",
                    help="also check that the document lists every source file under its room")
    ap.add_argument("--top", type=int, default=1, help="list the N longest functions")
    a = ap.parse_args()
    src = os.path.realpath(a.src)
    if not os.path.isdir(src):
        fail_setup("no source folder " + src)
    incdir = os.path.realpath(a.include or os.path.join(os.path.dirname(src), "include"))
    doc = a.arch or os.path.join(os.path.dirname(src), "docs", "ARCHITECTURE.md")
    want = {a.only} if a.only else {"circles", "includes", "length"} | (
        {"prefixes"} if a.prefixes else set()) | ({"files"} if a.files else set())
    allow = load_allow(a.allow)
    rooms = None
    if want & {"includes", "prefixes"}:
        rooms = parse_rooms(doc)
        check_rooms_match(rooms, doc, src, incdir)
    files = edges = defined = None
    if want & {"circles", "prefixes"}:
        if not a.build:
            fail_setup("--build BUILD_DIR is needed for the circle and prefix checks")
        files, edges, defined = find_edges(os.path.realpath(a.build), src)
    summary, bad = [], 0
    if "circles" in want:
        n = check_circles(files, edges, allow, a.allow)
        bad += n
        summary.append("%d file circles" % n)
    if "includes" in want:
        c, allowed = check_includes(src, incdir, rooms, allow, a.allow)
        bad += sum(c.values())
        summary += ["%d header circles" % c["header"], "%d room circles" % c["room"],
                    "%d upward includes" % c["upward"], "%d private includes" % c["private"]
                    + (" (plus %d allowed, being removed)" % allowed if allowed else "")]
    if "prefixes" in want:
        n = check_prefixes(defined, src, incdir, rooms, allow, a.allow)
        bad += n
        summary.append("%d prefix violations" % n)
    if "files" in want:
        n = check_files(doc, src)
        bad += n
        summary.append("%d files unlisted or stale" % n)
    if "length" in want:
        n, longest = check_length(src, a.max_lines, a.top)
        bad += n
        summary.append("longest function %d lines%s"
                       % (longest, " (%d over %d)" % (n, a.max_lines) if n else ""))
    print("check-circles: " + ", ".join(summary))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
