/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_H
#define HT_CLI_H

/*
 * Every subcommand is one file in cli/ exposing cmd_<name>().
 * Exit codes: 0 success, 1 a failure the user caused (the message says
 * what and where), 2 a usage error.
 */
enum { HT_EXIT_OK = 0, HT_EXIT_FAIL = 1, HT_EXIT_USAGE = 2 };

#define HT_CLI_COMMANDS(X)                                                     \
	X(gen, "generate C tracepoints and CTF metadata from a barectf 3 config") \
	X(print, "print CTF traces as text, exactly as babeltrace2 does")    \
	X(info, "summarize CTF traces: clocks, streams, events, span, losses")

#define HT__CLI_DECLARE(name, help) int cmd_##name(int argc, char **argv);
HT_CLI_COMMANDS(HT__CLI_DECLARE)
#undef HT__CLI_DECLARE

/* The program name for messages: "hetrace <cmd>". */
extern const char *ht_cli_prog;

#endif
