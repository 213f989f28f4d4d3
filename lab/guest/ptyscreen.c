/*
 * ptyscreen: runs a program on a pseudo-terminal of ROWS x COLS
 * (TERM=xterm), keeps its screen as a terminal would show it, and prints
 * that screen: so that a guest with busybox alone can check what a curses
 * program (xputrace top) draws.
 *
 *   ptyscreen ROWS COLS SECONDS PROGRAM [ARG...]
 *
 * After SECONDS it prints the screen (one line a row, trailing blanks cut,
 * each line "| ...") as it stands, sends 'q', waits up to 5 s for the
 * program, and prints "status N" (its exit status; 124: it did not end).
 * The terminal kept is the part of xterm that curses uses: cursor moves,
 * erasing, repeat (REP), insert/delete of lines and characters, scrolling
 * regions, reverse index; attributes and modes are read and ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXR 100
#define MAXC 256

static char cell[MAXR][MAXC];
static int rows, cols, y, x, top, bot;
static char last = ' ';

static void clear_row(int r, int from, int to)
{
	for (int i = from; i < to && i < cols; i++)
		cell[r][i] = ' ';
}

/* n rows up (n < 0: down) within [from, bot] */
static void scroll_up(int n, int from)
{
	for (int k = 0; k < (n < 0 ? -n : n); k++) {
		if (n > 0) {
			memmove(cell[from], cell[from + 1], (size_t)(bot - from) * MAXC);
			clear_row(bot, 0, cols);
		} else {
			memmove(cell[from + 1], cell[from], (size_t)(bot - from) * MAXC);
			clear_row(from, 0, cols);
		}
	}
}

static void put(char c)
{
	if (x < cols)
		cell[y][x++] = c;
	last = c;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void csi(const int *p, int np, char f)
{
	int a = np ? p[0] : 0, n = a ? a : 1;

	switch (f) {
	case 'H': case 'f':
		y = clamp((np && p[0] ? p[0] : 1) - 1, 0, rows - 1);
		x = clamp((np > 1 && p[1] ? p[1] : 1) - 1, 0, cols - 1);
		break;
	case 'd': y = clamp(n - 1, 0, rows - 1); break;
	case 'G': x = clamp(n - 1, 0, cols - 1); break;
	case 'A': y = clamp(y - n, 0, rows - 1); break;
	case 'B': y = clamp(y + n, 0, rows - 1); break;
	case 'C': x = clamp(x + n, 0, cols - 1); break;
	case 'D': x = clamp(x - n, 0, cols - 1); break;
	case 'K':
		clear_row(y, a == 0 ? x : 0, a == 1 ? x + 1 : cols);
		break;
	case 'J':
		if (a == 0) {
			clear_row(y, x, cols);
			for (int r = y + 1; r < rows; r++)
				clear_row(r, 0, cols);
		} else {
			for (int r = 0; r < rows; r++)
				clear_row(r, 0, cols);
		}
		break;
	case 'X': clear_row(y, x, x + n); break;
	case 'b':
		for (int i = 0; i < n; i++)
			put(last);
		break;
	case 'r':
		top = np && p[0] ? p[0] - 1 : 0;
		bot = np > 1 && p[1] ? p[1] - 1 : rows - 1;
		top = clamp(top, 0, rows - 1);
		bot = clamp(bot, top, rows - 1);
		y = x = 0;
		break;
	case 'S': scroll_up(n, top); break;
	case 'T': scroll_up(-n, top); break;
	case 'L': case 'M':
		if (y >= top && y <= bot)
			scroll_up(f == 'M' ? n : -n, y);
		break;
	case 'P':
		n = clamp(n, 0, cols - x);
		memmove(&cell[y][x], &cell[y][x + n], (size_t)(cols - x - n));
		clear_row(y, cols - n, cols);
		break;
	case '@':
		n = clamp(n, 0, cols - x);
		memmove(&cell[y][x + n], &cell[y][x], (size_t)(cols - x - n));
		clear_row(y, x, x + n);
		break;
	}
}

/* The parser's state between reads: a sequence may end in the next one. */
static char seq[64];
static int nseq;

static void feed(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (nseq) {
			if (nseq < (int)sizeof(seq) - 1)
				seq[nseq++] = c;
			if (seq[1] == '[') {
				if (nseq > 2 && c >= '@' && c <= '~') {
					int p[16], np = 0;
					char *q = seq + 2;

					seq[nseq] = 0;
					if (*q == '?' || *q == '>')
						q++;
					while (np < 16 && *q >= '0' && *q <= '9') {
						p[np++] = (int)strtol(q, &q, 10);
						if (*q == ';')
							q++;
					}
					csi(p, np, c);
					nseq = 0;
				}
			} else if (seq[1] == ']') {	/* OSC: to BEL */
				if (c == '\a')
					nseq = 0;
			} else if (seq[1] == '(' || seq[1] == ')') {
				if (nseq == 3)
					nseq = 0;
			} else if (nseq == 2) {
				if (c == 'M') {	/* reverse index */
					if (y == top)
						scroll_up(-1, top);
					else
						y = clamp(y - 1, 0, rows - 1);
				}
				if (c != '(' && c != ')')
					nseq = 0;
			}
			continue;
		}
		if (c == '\033') {
			seq[0] = c;
			nseq = 1;
		} else if (c == '\r') {
			x = 0;
		} else if (c == '\n') {
			if (y == bot)
				scroll_up(1, top);
			else
				y = clamp(y + 1, 0, rows - 1);
		} else if (c == '\b') {
			x = clamp(x - 1, 0, cols - 1);
		} else if ((unsigned char)c >= ' ') {
			put(c);
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the program writes, into the screen, until `until` (or its end). */
static void read_until(int m, double until)
{
	char buf[4096];

	for (double t; (t = now()) < until;) {
		struct pollfd p = { m, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, (int)((until - t) * 1000) + 1) <= 0)
			continue;
		if ((n = read(m, buf, sizeof(buf))) <= 0)
			return;	/* EIO: the program ended */
		feed(buf, (size_t)n);
	}
}

int main(int argc, char **argv)
{
	struct winsize ws = { 0 };
	double secs;
	int m, st = 0;
	pid_t pid;

	if (argc < 5 || (rows = atoi(argv[1])) < 2 || rows > MAXR || (cols = atoi(argv[2])) < 10 || cols > MAXC ||
	    (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: ptyscreen ROWS(2-%d) COLS(10-%d) SECONDS PROGRAM [ARG...]\n", MAXR, MAXC);
		return 2;
	}
	memset(cell, ' ', sizeof(cell));
	top = 0, bot = rows - 1;
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(m) || unlockpt(m)) {
		perror("ptyscreen: a pseudo-terminal");
		return 1;
	}
	ws.ws_row = (unsigned short)rows, ws.ws_col = (unsigned short)cols;
	if ((pid = fork()) < 0) {
		perror("ptyscreen: fork");
		return 1;
	}
	if (pid == 0) {
		int s;

		setsid();
		if ((s = open(ptsname(m), O_RDWR)) < 0)
			_exit(127);
		ioctl(s, TIOCSCTTY, 0);
		ioctl(s, TIOCSWINSZ, &ws);
		dup2(s, 0), dup2(s, 1), dup2(s, 2);
		if (s > 2)
			close(s);
		close(m);
		setenv("TERM", "xterm", 1);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	read_until(m, now() + secs);
	for (int r = 0; r < rows; r++) {
		int e = cols;

		while (e > 0 && cell[r][e - 1] == ' ')
			e--;
		printf("| %.*s\n", e, cell[r]);
	}
	if (write(m, "q", 1) != 1)
		kill(pid, SIGTERM);
	for (double end = now() + 5; now() < end;) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			printf("status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			return 0;
		}
		read_until(m, now() + 0.05);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("status 124\n");
	return 0;
}
