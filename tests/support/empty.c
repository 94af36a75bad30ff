/* Keeps the test-support library non-empty before any helper lands. */
typedef int bb_test_support_empty;
