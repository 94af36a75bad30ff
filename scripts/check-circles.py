#!/usr/bin/env python3
# check-circles.py — the tree's shape rules, checked on whatever tree it runs in:
#   circles: no two .c files under src/ call each other (a function or object defined in A
#            used by B and one defined in B used by A), nor any longer loop of files (A uses B
#            uses C uses A). The symbols come from the build's
#            object files (`nm`: defined vs undefined globals per object), found through the
#            build's compile_commands.json; static and static-inline functions never make an
#            edge, so only real cross-file references count.
#   length:  no function under src/ (.c and .h) is over --max-lines lines (100), from the line
#            of its name to its closing brace, found by a brace-counting parser of top-level
#            bodies over the text with comments, literals and preprocessor lines blanked.
# Usage: check-circles.py --build BUILD_DIR [--src SRC_DIR] [--allow FILE] [--max-lines N]
#                         [--only circles|length] [--top N]
# Exit 0 when clean, 1 on a violation (each printed), 2 when it cannot check (no build, no nm,
# a file it cannot parse). ctest runs it as `arch_circles` (tests/arch.cmake).
# SPDX-License-Identifier: MIT
import argparse
import json
import os
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
    defs, uses = {}, {}
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
    return sorted(uses), edges


def load_allow(path):
    allow = set()
    if not path:
        return allow
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                a, b = [x.strip() for x in line.split("<->")]
                allow.add(tuple(sorted((a, b))))
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


def check_circles(build, src, allow_file):
    files, edges = find_edges(build, src)
    allow = load_allow(allow_file)
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
    return len(bad)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="No circles between src/ files, no long functions.")
    ap.add_argument("--build", help="a configured and built build directory (for circles)")
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--allow", help="file of allowed pairs, one 'a.c <-> b.c' a line")
    ap.add_argument("--max-lines", type=int, default=100)
    ap.add_argument("--only", choices=("circles", "length"))
    ap.add_argument("--top", type=int, default=1, help="list the N longest functions")
    a = ap.parse_args()
    src = os.path.realpath(a.src)
    bad = 0
    if a.only != "length":
        if not a.build:
            fail_setup("--build BUILD_DIR is needed for the circle check")
        bad += check_circles(os.path.realpath(a.build), src, a.allow)
    if a.only != "circles":
        bad += check_length(src, a.max_lines, a.top)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
