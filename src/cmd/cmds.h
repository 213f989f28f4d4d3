/* The verbs. Each returns the process exit status: 0 ok, 1 failed, 2 bad usage. */
#ifndef XP_CMD_CMDS_H
#define XP_CMD_CMDS_H

int cmd_doctor(int argc, char **argv);
int cmd_ioctl(int argc, char **argv);

/* Prints "xputrace: <msg>" on stderr; returns `status`. */
int xp_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes and checks stdout: a failed write is an error, not a silent loss. */
int xp_finish_stdout(int status);

#endif
