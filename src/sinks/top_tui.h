/*
 * `xputrace top` on a terminal, with curses: it takes the screen (the
 * alternate screen, no echo, no cursor), reads keys, fits the table to the
 * window's width, follows its resizes, and draws the last minute above the
 * table. Everything is given back on every way out. No libbpf.
 */
#ifndef XP_SINKS_TOP_TUI_H
#define XP_SINKS_TOP_TUI_H

#include <stdbool.h>
#include "sinks/top.h"

/* What each row of the table is. */
enum xp_top_view { XP_TOP_PROCESSES, XP_TOP_CGROUPS, XP_TOP_DEVICES, XP_TOP_NVIEWS };

/* Intervals a history strip keeps. */
#define XP_TOP_HISTORY 60

struct xp_top_tui;

/*
 * Whether top can take the screen: standard input and output are a
 * terminal (keys can be read: its input has not reached its end) that
 * TERM names and the terminal database knows.
 */
bool xp_top_tui_wanted(void);
/* Takes the screen; `sort` as --sort takes it (NULL: the first column). NULL: it could not. */
struct xp_top_tui *xp_top_tui_open(const char *sort);
/*
 * A new refresh: `head` is the line above everything, `events` the
 * events per second (the history where no GPU time is counted); takes
 * fr's rows. Draws it.
 */
void xp_top_tui_frame(struct xp_top_tui *t, const char *head, struct xp_top_frame *fr, double events);
/* Reads the keys pressed (and a resize), redraws as they ask; true: `q`, quit. */
bool xp_top_tui_keys(struct xp_top_tui *t);
/* Gives the screen back; NULL does nothing. */
void xp_top_tui_close(struct xp_top_tui *t);
/*
 * The terminal as it was, from a signal handler (async-signal-safe: the
 * saved modes and the terminal's own strings, written as they are).
 */
void xp_top_tui_restore_now(void);

#endif
