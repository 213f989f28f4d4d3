/* uprobe.multi links by the bpf syscall, and function offsets from an ELF file's symbols. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "live/uprobe_multi.h"

/*
 * The kernel's union bpf_attr for BPF_LINK_CREATE with its uprobe_multi
 * member (include/uapi/linux/bpf.h since 6.6), written out because the
 * headers this builds with may predate it. Bytes past what a kernel knows
 * must be zero, and are.
 */
struct umulti_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umflags;	/* BPF_F_UPROBE_MULTI_RETURN = 1 */
	uint32_t pid;
	uint32_t pad;
};

static int link_create(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies,
		       int n, bool ret)
{
	struct umulti_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = XP_ATTACH_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offs;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = (uint32_t)n;
	a.umflags = ret ? 1 : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

int xp_umulti_attach(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies,
		     int n, bool ret)
{
	return link_create(prog_fd, path, offs, cookies, n, ret);
}

bool xp_umulti_supported(void)
{
	static int known = -1;
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = (enum bpf_attach_type)XP_ATTACH_UPROBE_MULTI);
	uint64_t off = 0;
	int prog, l;

	if (known >= 0)
		return known;
	known = 0;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	/*
	 * A directory cannot hold a uprobe: a kernel that knows the link type
	 * gets that far and says EBADF; one that does not, EINVAL first.
	 */
	l = link_create(prog, "/", &off, NULL, 1, false);
	if (l >= 0)
		close(l);
	known = l >= 0 || l == -EBADF;
	close(prog);
	return known;
}

/* One symbol table: the file offset of each name still wanted. */
static int scan(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *const *names, int n, uint64_t *off)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int found = 0;

	for (size_t i = 0; d && i < cnt; i++) {
		GElf_Sym s;
		GElf_Shdr ts;
		Elf_Scn *text;
		const char *nm;
		int t;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		t = GELF_ST_TYPE(s.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		if (!(nm = elf_strptr(e, sh->sh_link, s.st_name)))
			continue;
		for (int k = 0; k < n; k++) {
			if (off[k] || strcmp(nm, names[k]))
				continue;
			/* the function's address in its section, to a place in the file */
			if ((text = elf_getscn(e, s.st_shndx)) && gelf_getshdr(text, &ts) &&
			    s.st_value >= ts.sh_addr && s.st_value < ts.sh_addr + ts.sh_size) {
				off[k] = s.st_value - ts.sh_addr + ts.sh_offset;
				found++;
			}
			break;
		}
	}
	return found;
}

int xp_elf_func_offsets(const char *path, const char *const *names, int n, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	memset(off, 0, (size_t)n * sizeof(*off));
	if (fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL))) {
		close(fd);
		return -EINVAL;
	}
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	/* .symtab first (where a library still has it), then .dynsym for what is left */
	for (int pass = 0; pass < 2; pass++) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				found += scan(e, scn, &sh, names, n, off);
		}
	}
	elf_end(e);
	close(fd);
	return found;
}
