/*
 * sites.c - call sites: stack capture, the per-process site table, and
 * normalisation of return addresses to module + offset.
 *
 * A captured stack is looked up by its raw return addresses in an
 * open-addressing table (one hash, one compare on a hit). A new stack is
 * normalised once: each frame's module and load base come from a sorted
 * map of the loaded modules' segments (dl_iterate_phdr(3), made again
 * when a module was loaded or unloaded since), and the offset from that
 * base is what goes into the stack signature, so a site has the same
 * signature on every rank whatever the address-space randomisation.
 * (dladdr(3) gives the same module and base, but it also looks for the
 * nearest symbol, a linear scan of the module's symbol table: ~4 us per
 * frame in libc or libmpi, which at the few hundred new stacks per rank
 * of a real code and 16 ranks on 2 cores stretched NPB MG's run by
 * half.) Stacks with the same signature share one call-site id.
 * Symbols are looked up once per site at finalize (tc_sites_symbolise).
 * Out of memory (tc_cap_malloc) stops recording; a stack that cannot be
 * remembered gets no call site.
 */
#include "lib/compat.h"
#include "lib/capture/internal.h"
#include "lib/hash.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct site_def {
	struct tc_callsite cs;   /* id, signature, nframes, frames */
	struct tc_frame *frames;
	void **raw;              /* the addresses of the first stack seen */
};

struct site {
	uint64_t hash;
	uint32_t id;
	uint32_t n;
	void *raw[];
};

struct module {
	uintptr_t base;
	char *name;
};

/* the address range of a loaded module's segments */
struct range {
	uintptr_t lo, hi;        /* [lo, hi) */
	uintptr_t base;          /* where its lowest segment's page starts */
	const char *dlname;      /* the loader's, valid while it is loaded */
	const char *name;        /* interned in S.mods when a frame is in it */
};

/* room for the modules of an MPI process (Open MPI's components
 * included) in one allocation: which modules are loaded when the map is
 * made is timing, the number of allocations must not be */
#define RANGES_FIRST 512

static struct {
	struct site **tab;       /* open addressing, power of two */
	size_t mask, used;
	struct site_def **defs;  /* by id */
	size_t ndefs, defs_alloc;
	uint32_t *sigtab;        /* signature -> id + 1, open addressing */
	size_t sigmask, sigused;
	struct module *mods;     /* module names by base, kept for good */
	size_t nmods, mods_alloc;
	struct range *ranges;    /* sorted by lo */
	size_t nranges, ranges_alloc;
	unsigned long long adds, subs; /* the loader's counts the map is of */
	bool mapped;
	char exe[PATH_MAX];
} S;

/* stack bounds of this thread, for the frame-pointer walk */
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));

void tc_sites_init(void)
{
	ssize_t n;

	S.mask = 255;
	S.sigmask = 255;
	S.sigtab = tc_cap_calloc(S.sigmask + 1, sizeof(*S.sigtab));
	/* no table, no lookup (tc_sites_lookup) */
	S.tab = S.sigtab ? tc_cap_calloc(S.mask + 1, sizeof(*S.tab)) : NULL;
	n = readlink("/proc/self/exe", S.exe, sizeof(S.exe) - 1);
	S.exe[n > 0 ? n : 0] = '\0';
	/* the first call of backtrace(3) loads libgcc_s: not in a wrapper */
	if (!tc_cap.unw_backtrace && tc_cap.depth > 1) {
		void *b[4];
		backtrace(b, 4);
	}
}

static uintptr_t this_stack_hi(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 0;
	if (pthread_attr_getstack(&a, &addr, &size) == 0)
		stack_hi = (uintptr_t)addr + size;
	pthread_attr_destroy(&a);
	return stack_hi;
}

/*
 * Frame-pointer walk: only right when every frame keeps a frame pointer
 * (-fno-omit-frame-pointer); each step is checked against the stack
 * bounds, so a wrong chain ends early instead of crashing.
 */
static int __attribute__((noinline)) fp_walk(void **buf, int max)
{
	void **fp = __builtin_frame_address(0);
	uintptr_t lo = (uintptr_t)fp, hi = stack_hi ? stack_hi : this_stack_hi();
	int n = 0;

	while (n < max) {
		void **next;
		if ((uintptr_t)fp < lo || (uintptr_t)fp + 2 * sizeof(void *) > hi ||
		    ((uintptr_t)fp & (sizeof(void *) - 1)))
			break;
		buf[n++] = fp[1];
		next = fp[0];
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

int tc_sites_unwind(void **buf, int max)
{
	if (tc_cap.unwind == TC_UNWIND_FP)
		return fp_walk(buf, max);
	return backtrace(buf, max);
}

int tc_sites_capture_slow(void **out, void *ra)
{
	void *buf[TC_CAP_MAX_DEPTH + 16];
	int depth = tc_cap.depth, n, i;

	if (tc_cap.unwind == TC_UNWIND_CFI) {
		n = tc_unwind_cfi(buf, depth + 16);
		if (n < 0)
			n = tc_unwind_fallback(buf, depth + 16);
	} else if (tc_cap.unwind == TC_UNWIND_LIBUNWIND) {
		n = tc_cap.unw_backtrace(buf, depth + 16);
	} else {
		n = tc_sites_unwind(buf, depth + 16);
	}
	for (i = 0; i < n && buf[i] != ra; i++)
		;
	if (i == n) { /* an unwinder that cannot see the caller */
		out[0] = ra;
		return 1;
	}
	/* later captures ask for enough frames (a benign race under MT) */
	if (i + 1 > tc_cap.skip && i < 16)
		tc_cap.skip = i + 1;
	n = TC_MIN(n - i, depth);
	memcpy(out, buf + i, sizeof(void *) * (size_t)n);
	return n;
}

static uint64_t raw_hash(void *const *frames, int n)
{
	uint64_t h = (uint64_t)n;

	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)(uintptr_t)frames[i]) * 0x9e3779b97f4a7c15ULL;
	return tc_hash_fmix(h);
}

/* The name of the module loaded at base; NULL without memory. */
static const char *module_name(uintptr_t base, const char *fname)
{
	struct module *m;
	char *name;

	/* the executable has no name of its own in the loader's list */
	if (!fname || !*fname || (S.exe[0] && !strcmp(fname, program_invocation_name)))
		fname = S.exe[0] ? S.exe : "";
	for (size_t i = 0; i < S.nmods; i++)
		if (S.mods[i].base == base && !strcmp(S.mods[i].name, fname))
			return S.mods[i].name;
	name = tc_cap_strdup(fname);
	if (!name || !TC_CAP_GROW(S.mods, S.nmods + 1, S.mods_alloc)) {
		free(name);
		return NULL;
	}
	m = &S.mods[S.nmods++];
	m->base = base;
	m->name = name;
	return m->name;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct map_ctx {
	uintptr_t page;
	bool ok;
};

/* dl_iterate_phdr's callback: one range per module with segments */
static int map_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct map_ctx *m = ctx;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	struct range *r;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD)
			continue;
		lo = TC_MIN(lo, (uintptr_t)p->p_vaddr);
		hi = TC_MAX(hi, (uintptr_t)(p->p_vaddr + p->p_memsz));
	}
	if (lo >= hi)
		return 0;
	if (!TC_CAP_GROW(S.ranges, S.nranges + 1, S.ranges_alloc)) {
		m->ok = false;
		return 1;
	}
	r = &S.ranges[S.nranges++];
	r->lo = info->dlpi_addr + lo;
	r->hi = info->dlpi_addr + hi;
	/* the loader's own base (dladdr's dli_fbase): the page of the lowest
	 * segment, the executable's link address when it is not PIE */
	r->base = info->dlpi_addr + (lo & ~(m->page - 1));
	r->dlname = info->dlpi_name;
	r->name = NULL;
	return 0;
}

/* first object only: the loader's counts of loads and unloads */
static int loader_counts(struct dl_phdr_info *info, size_t size, void *ctx)
{
	unsigned long long *c = ctx;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

/* The map of the loaded modules, made again when a module was loaded or
 * unloaded since it was made; false without memory. */
static bool map_modules(void)
{
	unsigned long long c[2] = { 0, 0 };
	long page = sysconf(_SC_PAGESIZE);
	struct map_ctx m = { page > 0 ? (uintptr_t)page : 4096, true };

	dl_iterate_phdr(loader_counts, c);
	if (S.mapped && c[0] == S.adds && c[1] == S.subs)
		return true;
	m.ok = TC_CAP_GROW(S.ranges, RANGES_FIRST, S.ranges_alloc);
	S.nranges = 0;
	if (m.ok)
		dl_iterate_phdr(map_module, &m);
	if (S.nranges)
		qsort(S.ranges, S.nranges, sizeof(*S.ranges), range_cmp);
	S.mapped = m.ok;
	S.adds = c[0];
	S.subs = c[1];
	return m.ok;
}

/* the module range holding address a, or NULL */
static struct range *find_range(uintptr_t a)
{
	size_t lo = 0, hi = S.nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a < S.ranges[mid].lo)
			hi = mid;
		else if (a >= S.ranges[mid].hi)
			lo = mid + 1;
		else
			return &S.ranges[mid];
	}
	return NULL;
}

static void free_def(struct site_def *d)
{
	if (!d)
		return;
	free(d->frames);
	free(d->raw);
	free(d);
}

/* The normalised site of a stack; NULL without memory. */
static struct site_def *new_def(void *const *frames, int n)
{
	struct site_def *d = tc_cap_calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->frames = tc_cap_calloc((size_t)n, sizeof(*d->frames));
	d->raw = d->frames ? tc_cap_calloc((size_t)n, sizeof(void *)) : NULL;
	if (!d->raw) {
		free_def(d);
		return NULL;
	}
	memcpy(d->raw, frames, sizeof(void *) * (size_t)n);
	if (!map_modules()) {
		free_def(d);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		uintptr_t a = (uintptr_t)frames[i];
		/* a - 1: the call instruction, which may end its function */
		struct range *r = a ? find_range(a - 1) : NULL;

		/* its name kept once a frame is in it (the same modules on
		 * every rank, whatever else was loaded when the map was made) */
		if (r && !r->name && !(r->name = module_name(r->base, r->dlname))) {
			free_def(d);
			return NULL;
		}
		if (r) {
			d->frames[i].module = r->name;
			d->frames[i].offset = a - r->base;
		} else {
			d->frames[i].module = "";
			d->frames[i].offset = a;
		}
		d->frames[i].symbol = "";
	}
	d->cs.nframes = (uint32_t)n;
	d->cs.frames = d->frames;
	d->cs.signature = tc_stack_signature(d->frames, (uint32_t)n);
	return d;
}

static bool sig_grow(void)
{
	size_t nmask = S.sigmask * 2 + 1;
	uint32_t *nt = tc_cap_calloc(nmask + 1, sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i <= S.sigmask; i++) {
		uint32_t v = S.sigtab[i];
		size_t j;
		if (!v)
			continue;
		j = tc_hash_fmix(S.defs[v - 1]->cs.signature) & nmask;
		while (nt[j])
			j = (j + 1) & nmask;
		nt[j] = v;
	}
	free(S.sigtab);
	S.sigtab = nt;
	S.sigmask = nmask;
	return true;
}

/*
 * The id of the site with this normalised stack, defining it if new;
 * TC_NO_CALLSITE without memory.
 */
static uint32_t def_id(void *const *frames, int n)
{
	struct site_def *d = new_def(frames, n);
	size_t j;

	if (!d || ((S.sigused + 1) * 2 > S.sigmask + 1 && !sig_grow())) {
		free_def(d);
		return TC_NO_CALLSITE;
	}
	j = tc_hash_fmix(d->cs.signature) & S.sigmask;
	for (; S.sigtab[j]; j = (j + 1) & S.sigmask) {
		struct site_def *o = S.defs[S.sigtab[j] - 1];
		if (o->cs.signature == d->cs.signature) {
			free_def(d);
			return o->cs.id;
		}
	}
	if (!TC_CAP_GROW(S.defs, S.ndefs + 1, S.defs_alloc)) {
		free_def(d);
		return TC_NO_CALLSITE;
	}
	d->cs.id = (uint32_t)S.ndefs;
	S.defs[S.ndefs++] = d;
	S.sigtab[j] = d->cs.id + 1;
	S.sigused++;
	tc_cap_emit_callsite(&d->cs);
	return d->cs.id;
}

static bool tab_grow(void)
{
	size_t nmask = S.mask * 2 + 1;
	struct site **nt = tc_cap_calloc(nmask + 1, sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i <= S.mask; i++) {
		struct site *s = S.tab[i];
		size_t j;
		if (!s)
			continue;
		for (j = s->hash & nmask; nt[j]; j = (j + 1) & nmask)
			;
		nt[j] = s;
	}
	free(S.tab);
	S.tab = nt;
	S.mask = nmask;
	return true;
}

uint32_t tc_sites_lookup(void *const *frames, int n)
{
	uint64_t h;
	size_t j;
	struct site *s;

	if (n <= 0 || !S.tab)
		return TC_NO_CALLSITE;
	h = raw_hash(frames, n);
	for (j = h & S.mask; (s = S.tab[j]) != NULL; j = (j + 1) & S.mask) {
		if (s->hash == h && s->n == (uint32_t)n &&
		    !memcmp(s->raw, frames, sizeof(void *) * (size_t)n))
			return s->id;
	}
	s = tc_cap_malloc(sizeof(*s) + sizeof(void *) * (size_t)n);
	if (!s)
		return TC_NO_CALLSITE;
	s->hash = h;
	s->n = (uint32_t)n;
	memcpy(s->raw, frames, sizeof(void *) * (size_t)n);
	s->id = def_id(frames, n);
	/* not remembered without memory: the next lookup defines it again */
	if (s->id == TC_NO_CALLSITE || ((S.used + 1) * 2 > S.mask + 1 && !tab_grow())) {
		uint32_t id = s->id;
		free(s);
		return id;
	}
	for (j = h & S.mask; S.tab[j]; j = (j + 1) & S.mask)
		;
	S.tab[j] = s;
	S.used++;
	return s->id;
}

void tc_sites_symbolise(void (*emit)(const struct tc_callsite *cs, void *ctx), void *ctx)
{
	char buf[512];

	for (size_t i = 0; i < S.ndefs; i++) {
		struct site_def *d = S.defs[i];

		for (uint32_t k = 0; k < d->cs.nframes; k++) {
			struct tc_frame *f = &d->frames[k];
			Dl_info info;

			buf[0] = '\0';
			if (f->module[0])
				tc_elf_symbolise(f->module, f->offset, buf, sizeof(buf));
			/* fall back on the dynamic symbol table */
			if (!buf[0] && dladdr((char *)d->raw[k] - 1, &info) && info.dli_sname)
				snprintf(buf, sizeof(buf), "%s+0x%lx", info.dli_sname,
					 (unsigned long)((uintptr_t)d->raw[k] - (uintptr_t)info.dli_saddr));
			f->symbol = buf[0] ? tc_cap_strdup(buf) : NULL;
			if (!f->symbol)
				f->symbol = "";
		}
		emit(&d->cs, ctx);
	}
	tc_elf_release();
}

void tc_sites_release(void)
{
	for (size_t i = 0; i <= S.mask && S.tab; i++)
		free(S.tab[i]);
	for (size_t i = 0; i < S.ndefs; i++) {
		struct site_def *d = S.defs[i];
		for (uint32_t k = 0; k < d->cs.nframes; k++)
			if (d->frames[k].symbol[0])
				free((char *)d->frames[k].symbol);
		free(d->frames);
		free(d->raw);
		free(d);
	}
	for (size_t i = 0; i < S.nmods; i++)
		free(S.mods[i].name);
	free(S.tab);
	free(S.defs);
	free(S.sigtab);
	free(S.mods);
	free(S.ranges);
	memset(&S, 0, sizeof(S));
}
