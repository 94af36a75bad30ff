/* signals.c — the printable names of a crash's signal and si_code. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>

#include "symbols/symbols.h"

const char *sy_signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal";
    }
}

/* Codes a process sends (kill, raise, abort, tgkill) are shared by every signal. */
static const char *sent_code(int code) {
    switch (code) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_QUEUE: return "SI_QUEUE";
    case SI_KERNEL: return "SI_KERNEL";
    default: return "?";
    }
}

static const char *segv_code(int code) {
    switch (code) {
    case SEGV_MAPERR: return "SEGV_MAPERR";
    case SEGV_ACCERR: return "SEGV_ACCERR";
    default: return "?";
    }
}

static const char *bus_code(int code) {
    switch (code) {
    case BUS_ADRALN: return "BUS_ADRALN";
    case BUS_ADRERR: return "BUS_ADRERR";
    case BUS_OBJERR: return "BUS_OBJERR";
    default: return "?";
    }
}

static const char *fpe_code(int code) {
    switch (code) {
    case FPE_INTDIV: return "FPE_INTDIV";
    case FPE_INTOVF: return "FPE_INTOVF";
    case FPE_FLTDIV: return "FPE_FLTDIV";
    case FPE_FLTOVF: return "FPE_FLTOVF";
    case FPE_FLTUND: return "FPE_FLTUND";
    case FPE_FLTRES: return "FPE_FLTRES";
    case FPE_FLTINV: return "FPE_FLTINV";
    default: return "?";
    }
}

static const char *ill_code(int code) {
    switch (code) {
    case ILL_ILLOPC: return "ILL_ILLOPC";
    case ILL_ILLOPN: return "ILL_ILLOPN";
    case ILL_ILLADR: return "ILL_ILLADR";
    case ILL_PRVOPC: return "ILL_PRVOPC";
    default: return "?";
    }
}

const char *sy_code_name(int sig, int code) {
    if (code <= 0 || code == SI_KERNEL) return sent_code(code);
    switch (sig) {
    case SIGSEGV: return segv_code(code);
    case SIGBUS: return bus_code(code);
    case SIGFPE: return fpe_code(code);
    case SIGILL: return ill_code(code);
    default: return "?";
    }
}
