#!/usr/bin/env python3
# check_circles_test.py CHECK_SCRIPT — scripts/check-circles.py on small trees it must judge:
# two files that call each other, a loop of three, a pair in the allow file, a static inline
# function in a shared header (no edge), functions of 100 and 101 lines with braces in
# comments, strings and character literals. Compiles them with `cc` into a fake build.
# SPDX-License-Identifier: MIT
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
failures = 0


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


def tree(files):
    root = tempfile.mkdtemp(prefix="bb-circles-")
    src, build = os.path.join(root, "src"), os.path.join(root, "build")
    os.makedirs(os.path.join(src, "sub"))
    os.makedirs(build)
    cmds = []
    for name, text in files.items():
        path = os.path.join(src, name)
        with open(path, "w") as f:
            f.write(text)
        if name.endswith(".c"):
            obj = name.replace("/", "_") + ".o"
            subprocess.run(["cc", "-c", "-O0", "-I", src, path, "-o", os.path.join(build, obj)],
                           check=True)
            cmds.append({"directory": build, "file": path, "output": obj,
                         "command": "cc -c %s -o %s" % (path, obj)})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(cmds, f)
    return root, src, build


def run(files, *extra):
    root, src, build = tree(files)
    try:
        allow = [a.replace("ALLOW", os.path.join(root, "allow")) for a in extra]
        with open(os.path.join(root, "allow"), "w") as f:
            f.write("# pairs being removed\nsub/a.c <-> sub/b.c\n")
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--src", src] + allow,
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(root)


HDR = "static inline int shared(int x) { return x + 1; }\nint fa(int);\nint fb(int);\nint fc(int);\n"
pair = {
    "h.h": HDR,
    "sub/a.c": '#include "h.h"\nint fa(int x) { return x ? fb(x - 1) : shared(0); }\n',
    "sub/b.c": '#include "h.h"\nint fb(int x) { return x ? fa(x - 1) : shared(1); }\n',
}
rc, out = run(pair)
check(rc == 1, "a pair calling each other fails (rc %d)" % rc)
check("circle: src/sub/a.c <-> src/sub/b.c" in out, "the pair is named:\n" + out)
check("uses src/sub/b.c's fb" in out, "the symbol is named:\n" + out)

rc, out = run(pair, "--allow", "ALLOW")
check(rc == 0 and "allowed" in out, "an allowed pair passes and is reported:\n" + out)

loop = {
    "h.h": HDR,
    "x.c": '#include "h.h"\nint fa(int x) { return fb(x); }\n',
    "y.c": '#include "h.h"\nint fb(int x) { return fc(x); }\n',
    "z.c": '#include "h.h"\nint fc(int x) { return x ? fa(x - 1) : 0; }\n',
}
rc, out = run(loop)
check(rc == 1 and "3 files reach each other" in out, "a loop of three fails:\n" + out)

clean = {
    "h.h": HDR,
    "sub/a.c": '#include "h.h"\nint fa(int x) { return shared(x); }\n',
    "sub/b.c": '#include "h.h"\nint fb(int x) { return fa(x) + shared(x); }\n' + body(100) + "\n",
}
rc, out = run(clean)
check(rc == 0, "one-way calls, a shared static inline and a 100-line function pass:\n" + out)
check("0 circle(s)" in out and "longest 100" in out, "the summary says so:\n" + out)

clean["sub/b.c"] += body(101) + "\nstruct s { int a; };\nstatic const int t[] = {1, 2};\n"
rc, out = run(clean)
check(rc == 1 and "long_101 is 101 lines" in out and "long_100" not in out.split("too long")[1]
      .split("\n")[0], "a 101-line function fails, named:\n" + out)

print("check_circles_test: %s" % ("ok" if not failures else "%d failure(s)" % failures))
sys.exit(1 if failures else 0)
