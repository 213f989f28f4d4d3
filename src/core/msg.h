/* The one-line messages and the exit contract every verb shares:
 * 0 ok, 1 failed, 2 bad usage. */
#ifndef XP_CORE_MSG_H
#define XP_CORE_MSG_H

#define XP_VERSION "0.1.0"

/* Prints "xputrace: <msg>" on stderr; returns `status`. */
int xp_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes and checks stdout: a failed write is an error, not a silent loss. */
int xp_finish_stdout(int status);

#endif
