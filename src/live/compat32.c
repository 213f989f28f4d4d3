/*
 * Whether this machine runs 32-bit x86 programs at all. A kernel built
 * without IA32_EMULATION, or with it turned off at boot (`ia32_emulation=0`,
 * or IA32_EMULATION_DEFAULT_DISABLED), refuses to exec them with ENOEXEC:
 * such a machine has no 32-bit callers, so nothing needs scanning for them
 * and no hook needs passing over for them. The answer comes from the kernel
 * itself: a 32-bit program of 88 bytes, written here, is run once.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/features.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/*
 * ELF32 header, one PT_LOAD program header, then exit(0) through int 0x80:
 *   31 db           xor  %ebx,%ebx
 *   b8 01 00 00 00  mov  $1,%eax      (i386 __NR_exit)
 *   cd 80           int  $0x80
 */
static const unsigned char prog32[] = {
	/* e_ident: magic, ELFCLASS32, ELFDATA2LSB, EV_CURRENT, padding */
	0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	2, 0,			/* e_type: ET_EXEC */
	3, 0,			/* e_machine: EM_386 */
	1, 0, 0, 0,		/* e_version */
	0x54, 0x80, 0x04, 0x08,	/* e_entry: 0x08048054, the code below */
	0x34, 0, 0, 0,		/* e_phoff: 52 */
	0, 0, 0, 0,		/* e_shoff */
	0, 0, 0, 0,		/* e_flags */
	0x34, 0,		/* e_ehsize: 52 */
	0x20, 0,		/* e_phentsize: 32 */
	1, 0,			/* e_phnum */
	0, 0, 0, 0, 0, 0,	/* e_shentsize, e_shnum, e_shstrndx */
	/* program header: PT_LOAD of the whole file at 0x08048000, R+X */
	1, 0, 0, 0,
	0, 0, 0, 0,
	0x00, 0x80, 0x04, 0x08,
	0x00, 0x80, 0x04, 0x08,
	0x5d, 0, 0, 0,		/* p_filesz: 93 */
	0x5d, 0, 0, 0,		/* p_memsz */
	5, 0, 0, 0,		/* p_flags: PF_R | PF_X */
	0x00, 0x10, 0, 0,	/* p_align */
	/* code, at offset 0x54 */
	0x31, 0xdb, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xcd, 0x80,
};

_Static_assert(sizeof(prog32) == 0x5d, "p_filesz must be the file's size");

static int memfd(void)
{
	int fd = (int)syscall(SYS_memfd_create, "xputrace-ia32", MFD_CLOEXEC | MFD_EXEC);

	if (fd < 0 && errno == EINVAL)	/* kernels before 6.3 have no MFD_EXEC */
		fd = (int)syscall(SYS_memfd_create, "xputrace-ia32", MFD_CLOEXEC);
	return fd;
}

/* 1: runs 32-bit programs; 0: cannot (why says so); -1: could not find out. */
static int try_run(char *why, size_t len)
{
	char *const argv[] = { "xputrace-ia32", NULL }, *const envp[] = { NULL };
	int fd = memfd(), st, status = 0;
	pid_t pid;

	if (fd < 0 || write(fd, prog32, sizeof(prog32)) != (ssize_t)sizeof(prog32)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((pid = fork()) < 0) {
		close(fd);
		return -1;
	}
	if (pid == 0) {
		fexecve(fd, argv, envp);
		_exit(errno == ENOEXEC ? 100 : 101);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	st = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (st == 0)
		return 1;
	if (st == 100) {
		snprintf(why, len, "the kernel refuses to run 32-bit programs (built without "
			 "IA32_EMULATION, or ia32_emulation=0)");
		return 0;
	}
	return -1;
}

bool xp_runs_32bit(char *why, size_t len)
{
#if defined(__x86_64__)
	static int known = -2;
	static char said[128];

	if (known == -2)
		known = try_run(said, sizeof(said));
	/* not found out (no memfd exec, no fork): assume they can run, as before */
	if (why && len)
		snprintf(why, len, "%s", known == 0 ? said : "");
	return known != 0;
#else
	if (why && len)
		snprintf(why, len, "not an x86-64 machine: no 32-bit x86 compat syscalls");
	return false;
#endif
}
