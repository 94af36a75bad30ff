#!/usr/bin/env python3
# check.py MODE STATUS INSPECT_JSON PROG — the expectations of crash_where.sh for one mode: the
# exit status (killed by the signal: 128 + N from sh), the crash's signal, and the expected
# functions among the first symbolized frames, in order (each after the previous one).
# SPDX-License-Identifier: MIT
import json, subprocess, sys

SIGSEGV, SIGBUS, SIGFPE, SIGABRT = 11, 7, 8, 6
EXPECT = {
    "main": (SIGSEGV, ["m_store", "m_mid", "m_entry", "main"]),
    "thread": (SIGSEGV, ["t_store", "t_mid", "t_entry", "t_start"]),
    "lib": (SIGSEGV, ["lib_store", "lib_mid", "lib_entry", "main"]),
    "plugin": (SIGSEGV, ["plugin_store", "plugin_mid", "plugin_entry", "plugin", "main"]),
    "assert": (SIGABRT, ["abort", "a_check", "main"]),
    "fpe": (SIGFPE, ["f_div", "main"]),
    "bus": (SIGBUS, ["b_touch", "main"]),
    "overflow": (SIGSEGV, ["r_recurse", "r_recurse", "r_recurse", "r_recurse"]),
    "handler": (SIGSEGV, ["h_store", "h_handler", "s_raise", "main"]),
    "double": (SIGSEGV, ["d_store", "d_start"]),
    "stripped": (SIGSEGV, ["m_store", "m_mid", "m_entry", "main"]),
    "badstack": (SIGSEGV, ["u_badstack"]),
    "outputs": (SIGSEGV, ["m_store", "m_mid", "m_entry", "main"]),
    "debugfile": (SIGSEGV, ["m_store", "m_mid", "m_entry", "main"]),
}

def fail(msg):
    print("FAIL %s: %s" % (mode, msg))
    sys.exit(1)

mode, status, path, prog = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sig, want = EXPECT[mode]
if status != 128 + sig:
    fail("exit status %d, expected death by signal %d" % (status, sig))
doc = json.load(open(path))
crashes = doc.get("crashes") or []
if len(crashes) != 1:
    fail("%d crashes in the dump, expected 1" % len(crashes))
c = crashes[0]
if c["signal"] != sig:
    fail("signal %d (%s), expected %d" % (c["signal"], c["signal_name"], sig))
frames = c["frames"]
if mode == "badstack" and not c["unwind_fault"]:
    fail("the walk did not fault (unwind_fault false): %s" % [f["text"] for f in frames])
if mode == "stripped":
    # module+offset only for the program's own frames; addr2line on the unstripped copy names them
    names = []
    for f in frames:
        if f["module"] and f["module"].endswith("/cw_prog"):
            if f["function"] is not None:
                fail("frame %s named in a stripped program" % f["text"])
            out = subprocess.run(["addr2line", "-f", "-e", prog, f["offset"]],
                                 capture_output=True, text=True, check=True).stdout.split("\n")
            names.append(out[0])
        else:
            names.append(f["function"] or "?")
else:
    names = [f["function"] or "?" for f in frames]
print("%s: %s frames: %s" % (mode, c["signal_name"], " ".join(names[:12])))
at = 0
for w in want:
    try:
        at = names.index(w, at) + 1
    except ValueError:
        fail("%s not found in order among %s (expected %s)" % (w, names, want))
if at > len(want) + 8:
    fail("the expected frames start too deep: %s" % names)
print("ok %s" % mode)
