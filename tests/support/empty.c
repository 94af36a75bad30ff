/* Keeps the test-support library non-empty before any helper lands. */
/* SPDX-License-Identifier: MIT */
typedef int bb_test_support_empty;
