// cxx_inline_a.cpp — the other translation unit that uses cxx_inline.h's inline function.
// SPDX-License-Identifier: MIT
#include "cxx_inline.h"

void cxi_from_a(bb_recorder *r) { cxi_both(r, 1); }
