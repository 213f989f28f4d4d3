/*
 * xputrace top's refresh: a block of plain text, the table redrawn in place
 * on a terminal, or where the screen can be taken (sinks/top_tui.c) a frame
 * of it, with keys read between refreshes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd/serve.h"
#include "sinks/top.h"
#include "sinks/top_tui.h"

/* top: one refresh of the table, from what changed since the last one. */
int xp_top_refresh(struct serve_run *r)
{
	struct xp_top_opts to = { .sort = r->sort, .sources = r->sources };
	struct xp_top_frame fr = { 0 };
	uint64_t now = xp_now_ns(), events = 0;
	double dt = (double)(now - r->last_ns) / 1e9, rate;
	struct winsize ws;
	char when[16], head[320];
	time_t t = time(NULL);
	int n;

	for (int i = 0; i < r->nci; i++)
		events += r->events[i] ? r->events[i]->value : 0;
	rate = (double)(events - r->last_events) / (dt > 0 ? dt : 1);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (r->tty && !r->tui && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 3) {
		to.max_rows = ws.ws_row - 3;
		to.width = ws.ws_col;
	}
	/* a terminal is redrawn from its top left; plain text gets one block per refresh */
	if (r->tty && !r->tui)
		fputs("\033[H\033[2J", stdout);
	pthread_mutex_lock(&r->lock);
	snprintf(head, sizeof(head), "xputrace top %s  %.3f s  events %.0f/s  drops %llu  series %zu%s", when, dt,
		 rate, (unsigned long long)(r->drops[0]->value + r->drops[1]->value + r->drops[2]->value),
		 r->m.nbounded, r->m.folded ? " (more folded)" : "");
	if (r->tui) {
		n = xp_top_frame_make(&r->m, dt, r->sources, &fr);
	} else {
		printf("%s\n", head);
		n = xp_top_write(stdout, &r->m, dt, &to);
	}
	pthread_mutex_unlock(&r->lock);
	if (r->tui && n >= 0)
		xp_top_tui_frame(r->tui, head, &fr, rate);
	xp_top_frame_free(&fr);
	if (n < 0)
		return n;
	if (!r->tty)
		putchar('\n');
	r->last_ns = now;
	r->last_events = events;
	if (fflush(stdout) || ferror(stdout))
		return errno == EPIPE ? -EPIPE : -EIO;
	return 0;
}

/* top on its screen: the keys pressed; `q` ends the run as Ctrl-C does. */
static int on_keys(void *ctx)
{
	struct serve_run *r = ctx;

	if (xp_top_tui_keys(r->tui))
		xp_stop = 1;
	return 0;
}

void xp_top_take_screen(struct serve_run *r)
{
	if (!r->top || !r->tty || !xp_top_tui_wanted() || !(r->tui = xp_top_tui_open(r->sort)))
		return;
	r->sess.on_idle = on_keys;
	xp_signals_at_exit(xp_top_tui_restore_now);
}

bool xp_top_give_screen(struct serve_run *r)
{
	uint64_t d[XP_DROP_ALL], all = 0;

	if (!r->tui)
		return false;
	xp_signals_at_exit(NULL);
	xp_top_tui_close(r->tui);
	r->tui = NULL;
	/* the frames that showed them are gone with the screen: the drops are said here */
	if (r->sess.rb && !xp_session_drops_for(&r->sess, d, false))
		for (int i = 0; i < XP_DROP_ALL; i++)
			all += d[i];
	if (all)
		fprintf(stderr, "xputrace: top: %llu records dropped (ring buffer full, a kernel map full, "
			"or runs the kernel skipped)\n", (unsigned long long)all);
	return true;
}
