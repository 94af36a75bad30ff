/* commands.h — the subcommands of the `backbeat` tool, dispatched by main.c.
 *
 * Each takes the arguments after the subcommand name (argv[0] is the subcommand) and returns
 * the process exit status: 0 success, 1 failure, 2 usage error.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_COMMANDS_H
#define BACKBEAT_CLI_COMMANDS_H

int cmd_inspect(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_skill(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_tail(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_log(int argc, char **argv);

#endif /* BACKBEAT_CLI_COMMANDS_H */
