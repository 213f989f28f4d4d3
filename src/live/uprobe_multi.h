/*
 * uprobe.multi (Linux 6.6+): one BPF link for a program on many functions
 * of one file. Taking it away costs the kernel one wait for its readers,
 * not one per function as with a uprobe perf event each (measured here,
 * kernel 6.18: ~0.11 s per uprobe, serialized), so a tracer on many
 * functions starts and stops in a moment. libbpf 1.1 has no call for it:
 * the link is made with the bpf syscall directly.
 */
#ifndef XP_LIVE_UPROBE_MULTI_H
#define XP_LIVE_UPROBE_MULTI_H

#include <stdbool.h>
#include <stdint.h>

/* BPF_TRACE_UPROBE_MULTI in the kernel's enum bpf_attach_type (include/uapi/linux/bpf.h, 6.6) */
#define XP_ATTACH_UPROBE_MULTI 48

/* Whether this kernel takes uprobe.multi links (found once). */
bool xp_umulti_supported(void);
/*
 * The file offsets of functions names[0..n) in the ELF file `path`, from
 * its symbol tables (.symtab, then .dynsym: stripped libraries have only
 * the second); off[i] = 0 where it has none. The number found, or a
 * negative errno when the file cannot be read as ELF.
 */
int xp_elf_func_offsets(const char *path, const char *const *names, int n, uint64_t *off);
/*
 * Attaches program prog_fd (loaded with expected_attach_type
 * XP_ATTACH_UPROBE_MULTI) at offs[0..n) of `path`, each with its cookie;
 * at the functions' returns when `ret`. The link's fd, or -errno.
 */
int xp_umulti_attach(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies,
		     int n, bool ret);

#endif
