/* The processes running now, as /proc lists them. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/procs.h"

static bool comm_of(unsigned long pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%lu/comm", pid);
	if (!(f = fopen(path, "re")))
		return false;
	ok = fgets(comm, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		comm[strcspn(comm, "\n")] = '\0';
	return ok;
}

int xp_procs_each(const struct xp_filters *f,
		  int (*fn)(void *ctx, unsigned long pid, const char *comm), void *ctx)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	char comm[32];
	int ret = 0;

	if (!proc)
		return 0;
	while (!ret && (e = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (*end || !pid || pid == (unsigned long)getpid())
			continue;
		if (f->pid && pid != f->pid)
			continue;
		/* --comm is at most 15 characters, as a task name is */
		if (!comm_of(pid, comm, sizeof(comm)) || (f->comm && strcmp(comm, f->comm)))
			continue;
		ret = fn(ctx, pid, comm);
	}
	closedir(proc);
	return ret;
}
