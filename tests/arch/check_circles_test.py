#!/usr/bin/env python3
# check_circles_test.py CHECK_SCRIPT — scripts/check-circles.py on small trees it must judge.
# Each tree has rooms lo, sub, hi (src/<room>/), public headers (include/backbeat/) and a
# docs/ARCHITECTURE.md whose "Rooms and arrows" table declares hi -> sub -> lo.
#   files:    two files that call each other, a loop of three, a pair in the allow file, a
#             static inline function in a shared header (no edge);
#   length:   functions of 100 and 101 lines with braces in comments, strings and literals;
#   includes: two headers that include each other (and allowed), an upward include (and the
#             room circle it makes, and allowed), a public header including a src/ one, another
#             room's private header (_priv.h, _internal.h) while the room's own may, a .c
#             including its own header (no circle), a stale allow line;
#   table:    missing section, wrong columns, a src/ room with no row, a row with no folder,
#             an unknown room in "may include", declared arrows that go round: all exit 2;
#   prefixes: a global without its room's prefix, only with --prefixes / --only prefixes.
# Compiles the .c files with `cc` into a fake build.
# SPDX-License-Identifier: MIT
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
failures = 0

ROWS = {
    "lo": "| `lo` | — | `lo_` | the bottom |",
    "sub": "| `sub` | `lo` | `sub_`, `fa`, `fb`, `fc`, `long_` | the middle |",
    "hi": "| `hi` | `lo`, `sub` | `hi_`, `fa`, `fb`, `fc`, `long_` | the top |",
    "include": "| `include` | — | `bb_` | the public API |",
}


def doc(rows=None, head="| room | may include | prefix | question |", section=True):
    rows = ROWS if rows is None else rows
    return "\n".join(["# Architecture", "", "Text.", ""]
                     + (["## Rooms and arrows", "", "Prose first.", ""] if section else [])
                     + [head, "| --- | --- | --- | --- |"] + list(rows.values())
                     + ["", "## Next", "", "| a | b |", "| --- | --- |", "| 1 | 2 |", ""])


def check(cond, what):
    global failures
    if not cond:
        print("FAIL: " + what)
        failures += 1


def body(lines):
    """A function body of exactly `lines` lines from its name to its closing brace."""
    inner = ["    x += %d; /* { */" % i for i in range(lines - 4)]
    return "\n".join(["int long_%d(int x) {" % lines, '    const char *s = "}{"; (void)s;']
                     + inner + ["    return x + '}';", "}"])


def tree(files, arch):
    root = tempfile.mkdtemp(prefix="bb-circles-")
    src, build = os.path.join(root, "src"), os.path.join(root, "build")
    inc = os.path.join(root, "include")
    for d in ("src/lo", "src/sub", "src/hi", "include/backbeat", "docs", "build"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "docs", "ARCHITECTURE.md"), "w") as f:
        f.write(arch)
    cmds = []
    for name, text in sorted(files.items()):
        path = os.path.join(root, name if name.startswith(("include/", "src/")) else "src/" + name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    for name in sorted(files):
        if name.endswith(".c"):
            path = os.path.join(src, name)
            obj = name.replace("/", "_") + ".o"
            subprocess.run(["cc", "-c", "-O0", "-I", src, "-I", inc, path,
                            "-o", os.path.join(build, obj)], check=True)
            cmds.append({"directory": build, "file": path, "output": obj,
                         "command": "cc -c %s -o %s" % (path, obj)})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(cmds, f)
    return root, src, build


def run(files, *extra, allow="sub/a.c <-> sub/b.c\n", arch=None):
    root, src, build = tree(files, doc() if arch is None else arch)
    try:
        args = [a.replace("ALLOW", os.path.join(root, "allow")) for a in extra]
        with open(os.path.join(root, "allow"), "w") as f:
            f.write("# being removed\n" + allow)
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--src", src] + args,
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(root)


def guard(name, text):
    g = name.upper().replace("/", "_").replace(".", "_")
    return "#ifndef %s\n#define %s\n%s#endif\n" % (g, g, text)


HDR = guard("lo/h.h", "static inline int shared(int x) { return x + 1; }\n"
            "int fa(int);\nint fb(int);\nint fc(int);\n")

# ---- object-level circles and function length -----------------------------------------------

pair = {
    "lo/h.h": HDR,
    "sub/a.c": '#include "lo/h.h"\nint fa(int x) { return x ? fb(x - 1) : shared(0); }\n',
    "sub/b.c": '#include "lo/h.h"\nint fb(int x) { return x ? fa(x - 1) : shared(1); }\n',
}
rc, out = run(pair)
check(rc == 1, "a pair calling each other fails (rc %d)" % rc)
check("circle: src/sub/a.c <-> src/sub/b.c" in out, "the pair is named:\n" + out)
check("uses src/sub/b.c's fb" in out, "the symbol is named:\n" + out)
check("check-circles: 1 file circles, 0 header circles" in out, "the summary counts it:\n" + out)

rc, out = run(pair, "--allow", "ALLOW")
check(rc == 0 and "allowed" in out, "an allowed pair passes and is reported:\n" + out)

loop = {
    "lo/h.h": HDR,
    "hi/x.c": '#include "lo/h.h"\nint fa(int x) { return fb(x); }\n',
    "hi/y.c": '#include "lo/h.h"\nint fb(int x) { return fc(x); }\n',
    "hi/z.c": '#include "lo/h.h"\nint fc(int x) { return x ? fa(x - 1) : 0; }\n',
}
rc, out = run(loop)
check(rc == 1 and "3 files reach each other" in out, "a loop of three fails:\n" + out)

clean = {
    "lo/h.h": HDR,
    "lo/lo_priv.h": guard("lo/lo_priv.h", "int lo_twice(int);\n"),
    "lo/lo.c": '#include "lo/h.h"\n#include "lo_priv.h"\n#include "backbeat/api.h"\n'
               "int lo_twice(int x) { return 2 * x; }\n",
    "sub/sub.h": guard("sub/sub.h", '#include "lo/h.h"\nint sub_f(int);\n'),
    "sub/a.c": '#include "lo/h.h"\n/* #include "lo/lo_priv.h" */\n// #include "hi/hi.h"\n'
               "int fa(int x) { return shared(x); }\n",
    "sub/b.c": '#include "lo/h.h"\n#include "sub/sub.h"\n'
               "int fb(int x) { return fa(x) + shared(x); }\n"
               "int sub_f(int x) { return x; }\n" + body(100) + "\n",
    "hi/hi.c": '#include "sub/sub.h"\n#include "lo/h.h"\n#include <stdio.h>\n'
               "int hi_f(int x) { return sub_f(x) + fb(x); }\n",
    "include/backbeat/api.h": guard("api.h", '#include "detail/x.h"\nint bb_api(int);\n'),
    "include/backbeat/detail/x.h": guard("x.h", "int bb_x;\n"),
}
rc, out = run(clean)
check(rc == 0, "a clean tree passes (one-way calls and includes, a shared static inline, a "
      ".c including its own header, the room's own private header, public headers, includes "
      "in comments, a 100-line function):\n" + out)
check("0 circle(s)" in out and "longest 100" in out, "the summary says so:\n" + out)
check("check-circles: 0 file circles, 0 header circles, 0 room circles, 0 upward includes, "
      "0 private includes, longest function 100 lines" in out, "the summary line:\n" + out)

long_ = dict(clean)
long_["sub/b.c"] += body(101) + "\nstruct s { int a; };\nstatic const int t[] = {1, 2};\n"
rc, out = run(long_)
check(rc == 1 and "long_101 is 101 lines" in out and "long_100" not in out.split("too long")[1]
      .split("\n")[0], "a 101-line function fails, named:\n" + out)

# ---- header circles --------------------------------------------------------------------------

cyc = dict(clean)
cyc["lo/a.h"] = guard("lo/a.h", '#include "b.h"\nint lo_a(void);\n')  # same-folder form
cyc["lo/b.h"] = guard("lo/b.h", '#include "lo/a.h"\nint lo_b(void);\n')
cyc["lo/ab.c"] = '#include "lo/a.h"\nint lo_a(void) { return 1; }\n'
rc, out = run(cyc)
check(rc == 1 and "header circle: src/lo/a.h <-> src/lo/b.h" in out,
      "two headers including each other fail:\n" + out)
check("src/lo/a.h includes b.h" in out and "1 header circles" in out,
      "the include is named and counted:\n" + out)
rc, out = run(cyc, "--allow", "ALLOW", allow="header: src/lo/b.h <-> src/lo/a.h\n")
check(rc == 0 and "header circle (allowed, being removed)" in out,
      "an allowed header pair passes:\n" + out)

three = dict(clean)
three["lo/a.h"] = guard("lo/a.h", '#include "lo/b.h"\n')
three["lo/b.h"] = guard("lo/b.h", '#include "lo/c.h"\n')
three["lo/c.h"] = guard("lo/c.h", '#include "lo/a.h"\n')
rc, out = run(three)
check(rc == 1 and "3 files include each other" in out, "a loop of three headers fails:\n" + out)

# ---- upward and private includes -------------------------------------------------------------

up = dict(clean)
up["lo/lo.c"] = '#include "sub/sub.h"\n' + clean["lo/lo.c"]
rc, out = run(up)
check(rc == 1 and "upward: src/lo/lo.c includes sub/sub.h (lo may not include sub)" in out,
      "an upward include fails, named:\n" + out)
check("room circle: lo, sub" in out and "1 room circles, 1 upward includes" in out,
      "the room circle it makes is named and counted:\n" + out)
rc, out = run(up, "--allow", "ALLOW", allow="upward: src/lo/lo.c -> sub/sub.h\n"
              "upward: src/lo/gone.c -> hi/hi.h\nprivate: src/hi/hi.c -> lo/lo_priv.h\n")
check(rc == 0 and "(allowed, being removed)" in out and "0 upward includes" in out,
      "an allowed upward include passes:\n" + out)
check("note: allowed upward src/lo/gone.c -> hi/hi.h is no longer found" in out
      and "note: allowed private src/hi/hi.c -> lo/lo_priv.h is no longer found" in out,
      "stale allow lines are reported:\n" + out)

pub = dict(clean)
pub["include/backbeat/detail/x.h"] = guard("x.h", '#include "lo/h.h"\nint bb_x;\n')
rc, out = run(pub)
check(rc == 1 and "upward: include/backbeat/detail/x.h includes lo/h.h (include may not "
      "include lo)" in out, "a public header including a src/ header fails:\n" + out)

priv = dict(clean)
priv["sub/a.c"] = '#include "lo/lo_priv.h"\n' + clean["sub/a.c"]
priv["hi/in_internal.h"] = guard("hi/in_internal.h", "int hi_in;\n")
priv["hi/hi2.c"] = '#include "hi/in_internal.h"\nint hi_g(void) { return 0; }\n'
rc, out = run(priv)
check(rc == 1 and "private: src/sub/a.c includes lo/lo_priv.h (private to lo)" in out
      and "1 private includes" in out and "upward: src/sub" not in out,
      "another room's private header fails (its own room's does not):\n" + out)
priv2 = dict(clean)
priv2["hi/hi.c"] = '#include "sub/s_internal.h"\n' + clean["hi/hi.c"]
priv2["sub/s_internal.h"] = guard("sub/s_internal.h", "int sub_in;\n")
rc, out = run(priv2)
check(rc == 1 and "private: src/hi/hi.c includes sub/s_internal.h (private to sub)" in out,
      "an _internal.h of another room fails:\n" + out)
rc, out = run(priv, "--allow", "ALLOW", allow="private: src/sub/a.c -> lo/lo_priv.h\n")
check(rc == 0, "an allowed private include passes:\n" + out)

# ---- the arrows table ------------------------------------------------------------------------

def setup_error(arch, text, what, files=clean):
    rc, out = run(files, arch=arch)
    check(rc == 2 and text in out, what + " exits 2 (rc %d):\n%s" % (rc, out))


setup_error(doc(section=False), 'no "## Rooms and arrows" section', "a document with no table")
setup_error(doc(head="| room | may include | question |"), "the columns must be",
            "a table with the wrong columns")
setup_error(doc({k: v for k, v in ROWS.items() if k != "hi"}), "src/hi/ has no row",
            "a table missing a room")
setup_error(doc(dict(ROWS, gone="| `gone` | `lo` | `go_` | nothing here |")),
            "room `gone` names no folder", "a row naming no folder")
setup_error(doc(dict(ROWS, lo="| `lo` | `nowhere` | `lo_` | the bottom |")),
            "may include `nowhere`, which has no row", "an arrow to an unknown room")
setup_error(doc(dict(ROWS, lo="| `lo` | `hi` | `lo_` | the bottom |")),
            "the declared arrows go round", "declared arrows that go round")
setup_error(doc(dict(ROWS, lo="| `lo` | — | the bottom |")), "3 cells, expected 4",
            "a row with a missing cell")
setup_error(doc(dict(ROWS, lo="| `lo` | — | none | the bottom |")), "no prefix",
            "a row with no prefix")
rc, out = run(dict(clean, **{"top.c": "int lo_top;\n"}))
check(rc == 2 and "src/top.c is in no room" in out, "a source outside the rooms exits 2:\n" + out)
rc, out = run(clean, "--only", "length", arch="no table here\n")
check(rc == 0, "--only length needs no table:\n" + out)

# ---- prefixes --------------------------------------------------------------------------------

pre = dict(clean)
pre["lo/lo.c"] += "int unprefixed(int x) { return x; }\nint bb_api(int x) { return x; }\n" \
                  "int bb_hidden(int x) { return x; }\n"
rc, out = run(pre)
check(rc == 0 and "prefix" not in out, "prefixes are not checked by default:\n" + out)
rc, out = run(pre, "--prefixes")
check(rc == 1 and "prefix: src/lo/lo.c defines unprefixed (lo: lo_" in out
      and "defines bb_hidden" in out and "bb_api" not in out and "2 prefix violations" in out,
      "--prefixes names globals without their room's prefix (a public bb_ one passes):\n" + out)
rc, out = run(pre, "--only", "prefixes", "--allow", "ALLOW",
              allow="prefix: unprefixed\nprefix: bb_hidden\n")
check(rc == 0 and "0 prefix violations" in out, "--only prefixes with an allow file:\n" + out)

# ---- the file list ---------------------------------------------------------------------------

def listing(files, drop=()):
    """The "Rooms, file by file" section listing `files` (less `drop`)."""
    out = ["## Rooms, file by file", ""]
    for room in ("lo", "sub", "hi"):
        out += ["### `%s/`" % room]
        names = sorted(n.split("/", 1)[1] for n in files if n.startswith(room + "/"))
        out += ["- `%s`: its role." % n for n in names if room + "/" + n not in drop]
        out += [""]
    return "\n".join(out + [""])


rc, out = run(clean, "--only", "files", arch=doc() + listing(clean))
check(rc == 0 and "0 files unlisted or stale" in out, "a full file list passes:\n" + out)
rc, out = run(clean, "--only", "files", arch=doc() + listing(clean, drop=("lo/lo.c",)))
check(rc == 1 and "unlisted: src/lo/lo.c" in out, "a file missing from the list fails:\n" + out)
stale = listing(clean).replace("### `hi/`", "### `hi/`\n- `gone.c`, `gone.h`: was here.")
rc, out = run(clean, "--only", "files", arch=doc() + stale)
check(rc == 1 and "lists hi/gone.c, which does not exist" in out and "hi/gone.h" in out,
      "a line naming no file fails:\n" + out)
rc, out = run(clean, "--only", "files")
check(rc == 2 and "Rooms, file by file" in out, "a document with no file list exits 2:\n" + out)

twins = dict(clean, **{"hi/lo.c": '#include "lo/h.h"\nint hi_twin(int x) { return x; }\n'})
rc, out = run(twins, "--only", "files", arch=doc() + listing(twins))
check(rc == 1 and "name: lo.c/.h in hi/, lo/" in out, "two files of one name fail:\n" + out)

print("check_circles_test: %s" % ("ok" if not failures else "%d failure(s)" % failures))
sys.exit(1 if failures else 0)
