/*
 * elfsym.c - symbol names for module + offset, from the module's ELF
 * symbol table (.symtab, else .dynsym). Used once per call-site frame at
 * finalize; each module is mapped and indexed once, every read is checked
 * against the file size. Without memory a module has no symbols.
 */
#include "lib/compat.h"
#include "lib/capture/internal.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct sym {
	uint64_t value, size;
	const char *name;
};

struct elfmod {
	char *path;
	bool ok;
	uint64_t base;     /* link-time address of the module's first page */
	struct sym *syms;
	size_t n;
	void *map;
	size_t maplen;
};

static struct elfmod *mods;
static size_t nmods, mods_alloc;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static bool in_file(const struct elfmod *m, uint64_t off, uint64_t len)
{
	return off <= m->maplen && len <= m->maplen - off;
}

static void index_symbols(struct elfmod *m, const Elf64_Shdr *sh, const Elf64_Shdr *strsh)
{
	const uint8_t *base = m->map;
	const char *strs = (const char *)base + strsh->sh_offset;
	size_t nsyms;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_file(m, sh->sh_offset, sh->sh_size) ||
	    !in_file(m, strsh->sh_offset, strsh->sh_size))
		return;
	nsyms = sh->sh_size / sizeof(Elf64_Sym);
	m->syms = tc_cap_calloc(nsyms ? nsyms : 1, sizeof(*m->syms));
	if (!m->syms)
		return;
	for (size_t i = 0; i < nsyms; i++) {
		Elf64_Sym s;
		unsigned type;

		memcpy(&s, base + sh->sh_offset + i * sizeof(s), sizeof(s));
		type = ELF64_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value || s.st_name >= strsh->sh_size ||
		    !memchr(strs + s.st_name, '\0', strsh->sh_size - s.st_name))
			continue;
		m->syms[m->n].value = s.st_value;
		m->syms[m->n].size = s.st_size;
		m->syms[m->n].name = strs + s.st_name;
		m->n++;
	}
	qsort(m->syms, m->n, sizeof(*m->syms), sym_cmp);
}

static void load(struct elfmod *m)
{
	struct stat st;
	Elf64_Ehdr eh;
	const uint8_t *p;
	uint64_t lowest = UINT64_MAX;
	long page = sysconf(_SC_PAGESIZE);
	const Elf64_Shdr *symtab = NULL, *dynsym = NULL, *sh, *use;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(eh)) {
		close(fd);
		return;
	}
	m->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return;
	}
	m->maplen = (size_t)st.st_size;
	p = m->map;
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(m, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)) ||
	    !in_file(m, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
			lowest = ph.p_vaddr;
	}
	if (lowest == UINT64_MAX)
		return;
	m->base = lowest & ~(uint64_t)(page - 1);
	sh = (const Elf64_Shdr *)(p + eh.e_shoff);
	if ((uintptr_t)sh % _Alignof(Elf64_Shdr))
		return;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB && !symtab)
			symtab = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !dynsym)
			dynsym = &sh[i];
	}
	use = symtab ? symtab : dynsym;
	if (!use || use->sh_link >= eh.e_shnum)
		return;
	index_symbols(m, use, &sh[use->sh_link]);
	m->ok = m->n > 0;
}

/* The module at path, loaded once; NULL without memory. */
static struct elfmod *get_mod(const char *path)
{
	struct elfmod *m;
	char *copy;

	for (size_t i = 0; i < nmods; i++)
		if (!strcmp(mods[i].path, path))
			return &mods[i];
	copy = tc_cap_strdup(path);
	if (!copy || !TC_CAP_GROW(mods, nmods + 1, mods_alloc)) {
		free(copy);
		return NULL;
	}
	m = &mods[nmods++];
	memset(m, 0, sizeof(*m));
	m->path = copy;
	load(m);
	return m;
}

void tc_elf_symbolise(const char *module, uint64_t offset, char *buf, size_t len)
{
	struct elfmod *m = get_mod(module);
	uint64_t addr;
	size_t lo = 0, hi;

	buf[0] = '\0';
	if (!m || !m->ok || offset == 0)
		return;
	addr = m->base + offset - 1; /* inside the call instruction */
	hi = m->n;
	while (lo < hi) { /* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return;
	{
		const struct sym *s = &m->syms[lo - 1];
		if (s->size && addr >= s->value + s->size)
			return;
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr + 1 - s->value);
	}
}

void tc_elf_release(void)
{
	for (size_t i = 0; i < nmods; i++) {
		if (mods[i].map)
			munmap(mods[i].map, mods[i].maplen);
		free(mods[i].syms);
		free(mods[i].path);
	}
	free(mods);
	mods = NULL;
	nmods = mods_alloc = 0;
}
