/* `xputrace top` on a terminal: the screen, the keys, the redraws (curses). */
#include <curses.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "sinks/top_tui_draw.h"

/* What the signal handler writes: the strings saved while the screen is ours. */
static struct termios saved_tio;
static char leave_seq[128];
static size_t leave_len;
static volatile int screen_taken;
/* What is said on stderr while the screen is ours: kept, and said once it is given back. */
static int held_err = -1, saved_err = -1;

static void hold_stderr(void)
{
	held_err = memfd_create("xputrace-top-stderr", MFD_CLOEXEC);
	saved_err = held_err < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved_err < 0 || dup2(held_err, STDERR_FILENO) < 0) {
		if (held_err >= 0)
			close(held_err);
		if (saved_err >= 0)
			close(saved_err);
		held_err = saved_err = -1;
	}
}

/* stderr back, and what it held said on it (async-signal-safe) */
static void say_held(void)
{
	char buf[4096];
	ssize_t n;

	if (held_err < 0)
		return;
	dup2(saved_err, STDERR_FILENO);
	lseek(held_err, 0, SEEK_SET);
	while ((n = read(held_err, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
	close(held_err);
	close(saved_err);
	held_err = saved_err = -1;
}

/* A terminal capability's string, or "" where the terminal has none. */
static const char *cap_str(const char *name)
{
	char *s = tigetstr(name);

	return s && s != (char *)-1 ? s : "";
}

/*
 * Standard input at its end (a terminal whose other side said EOF, as
 * `script` does when its own input is /dev/null): no key can come. What was
 * typed ahead is read, and pushed back once the screen is taken.
 */
static char typed[64];
static int ntyped;

static bool input_ended(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 0) != 1)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	n = read(STDIN_FILENO, typed, sizeof(typed));
	if (n <= 0)
		return true;
	ntyped = (int)n;
	return false;
}

bool xp_top_tui_wanted(void)
{
	const char *term = getenv("TERM");
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !*term || !strcmp(term, "dumb"))
		return false;
	/* the terminal database knows it, and it can place the cursor */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	if (!*cap_str("cup")) {
		del_curterm(cur_term);
		return false;
	}
	del_curterm(cur_term);
	return !input_ended();
}

struct xp_top_tui *xp_top_tui_open(const char *sort)
{
	struct xp_top_tui *t = calloc(1, sizeof(*t));
	SCREEN *s;

	if (!t)
		return NULL;
	if (tcgetattr(STDIN_FILENO, &saved_tio) || !(s = newterm(NULL, stdout, stdin))) {
		free(t);
		return NULL;
	}
	t->screen = s;
	snprintf(t->sort, sizeof(t->sort), "%s", sort ? sort : "");
	leave_len = (size_t)snprintf(leave_seq, sizeof(leave_seq), "%s%s%s%s", cap_str("sgr0"), cap_str("rmcup"),
				     cap_str("cnorm"), cap_str("rmkx"));
	if (leave_len >= sizeof(leave_seq))
		leave_len = 0;
	screen_taken = 1;
	hold_stderr();
	cbreak();	/* Ctrl-C stays a signal */
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	idcok(stdscr, FALSE);
	while (ntyped > 0)
		ungetch((unsigned char)typed[--ntyped]);
	xp_top_tui_draw(t);
	return t;
}

void xp_top_tui_frame(struct xp_top_tui *t, const char *head, struct xp_top_frame *fr, double events)
{
	xp_top_frame_free(&t->cur);
	t->cur = *fr;
	fr->rows = NULL;
	fr->nrows = 0;
	snprintf(t->head, sizeof(t->head), "%s", head);
	xp_top_tui_history(t, events);
	xp_top_tui_draw(t);
}

/* The next (step 1) or the last (-1) sort key: the columns, then PID, COMM, CGROUP. */
static void next_sort(struct xp_top_tui *t, int step)
{
	int n = t->cur.ncol + 3, i = xp_top_tui_sort_index(t);

	i = ((i + step) % n + n) % n;
	if (i < t->cur.ncol)
		snprintf(t->sort, sizeof(t->sort), "%s", t->cur.name[i]);
	else
		snprintf(t->sort, sizeof(t->sort), "%s", (const char *[]){ "pid", "comm", "cgroup" }[i - t->cur.ncol]);
}

bool xp_top_tui_keys(struct xp_top_tui *t)
{
	bool redraw = false;
	int k;

	while ((k = getch()) != ERR) {
		switch (k) {
		case 'q':
		case 'Q':
			return true;
		case 's':
		case '>':
		case KEY_RIGHT:
			next_sort(t, 1);
			break;
		case '<':
		case KEY_LEFT:
			next_sort(t, -1);
			break;
		case 'r':
		case 'I':
			t->reverse = !t->reverse;
			break;
		case 'v':
		case '\t':
			t->view = (t->view + 1) % XP_TOP_NVIEWS;
			break;
		case 'h':
		case '?':
			t->help = !t->help;
			break;
		case KEY_RESIZE:
		case 12:	/* Ctrl-L: draw it all again */
			clearok(curscr, TRUE);
			break;
		default:
			continue;
		}
		redraw = true;
	}
	if (redraw)
		xp_top_tui_draw(t);
	return false;
}

void xp_top_tui_close(struct xp_top_tui *t)
{
	if (!t)
		return;
	endwin();
	screen_taken = 0;
	fflush(stdout);
	say_held();
	delscreen(t->screen);
	xp_top_frame_free(&t->cur);
	free(t);
}

void xp_top_tui_restore_now(void)
{
	if (!screen_taken)
		return;
	screen_taken = 0;
	if (leave_len && write(STDOUT_FILENO, leave_seq, leave_len) < 0)
		leave_len = 0;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	say_held();
}
