/* config_doc.c — the BACKBEAT_* table of the docs is the code's table (bb__g_vars,
 * src/global/global_config_table.c), row for row.
 *
 *   global_config_doc --print          the table as markdown, to paste into the docs
 *   global_config_doc FILE.md...       each FILE's table (the rows after the header
 *                                      "| variable | meaning | default |") must equal it
 *
 * Exit 1 on any difference, naming the file, the row and both texts. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global/global_internal.h"

#define HEADER "| variable | meaning | default |"

/* Row i of the table as the docs write it. */
static void render(size_t i, char *out, size_t cap) {
    const bb__g_var *v = &bb__g_vars[i];
    char alias[128] = "";
    if (v->alias) snprintf(alias, sizeof alias, " (alias `%s`)", v->alias);
    snprintf(out, cap, "| `%s`%s | %s | %s |", v->name, alias, v->doc, v->doc_default);
}

static void print_table(FILE *f) {
    char row[2048];
    fprintf(f, "%s\n| --- | --- | --- |\n", HEADER);
    for (size_t i = 0; i < bb__g_var_count; i++) {
        render(i, row, sizeof row);
        fprintf(f, "%s\n", row);
    }
}

/* Read one line (without its newline) into buf; false at the end. */
static int next_line(FILE *f, char *buf, size_t cap) {
    if (!fgets(buf, (int)cap, f)) return 0;
    buf[strcspn(buf, "\n")] = '\0';
    return 1;
}

/* Compare the table of `path` with the code's; returns the number of differences. */
static int check_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char line[4096], want[2048];
    int found = 0, bad = 0;
    while (!found && next_line(f, line, sizeof line)) found = strcmp(line, HEADER) == 0;
    if (!found) {
        fprintf(stderr, "%s: no line \"%s\"\n", path, HEADER);
        fclose(f);
        return 1;
    }
    next_line(f, line, sizeof line); /* | --- | --- | --- | */
    size_t i = 0;
    while (next_line(f, line, sizeof line) && line[0] == '|') {
        if (i < bb__g_var_count) render(i, want, sizeof want);
        if (i >= bb__g_var_count || strcmp(line, want) != 0) {
            fprintf(stderr, "%s: row %zu differs from the code's table\n  doc:  %s\n  code: %s\n",
                    path, i + 1, line, i < bb__g_var_count ? want : "(no such row)");
            bad++;
        }
        i++;
    }
    for (; i < bb__g_var_count; i++) {
        render(i, want, sizeof want);
        fprintf(stderr, "%s: row %zu missing\n  code: %s\n", path, i + 1, want);
        bad++;
    }
    fclose(f);
    return bad;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s --print | FILE.md...\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "--print") == 0) {
        print_table(stdout);
        return 0;
    }
    int bad = 0;
    for (int i = 1; i < argc; i++) bad += check_file(argv[i]);
    if (bad) {
        fprintf(stderr, "%d difference(s); the code's table (src/global/global_config_table.c):\n",
                bad);
        print_table(stderr);
        return 1;
    }
    printf("%d file(s) list the %zu BACKBEAT_* variables of the code's table\n", argc - 1,
           bb__g_var_count);
    return 0;
}
