/*
 * unwind.c - a cached DWARF CFI stack walker for x86-64.
 *
 * The first time a return address is seen, its frame rule is worked out
 * from the module's .eh_frame (the FDE found by libgcc's
 * _Unwind_Find_FDE, its CIE and call-frame program run up to the
 * address): the CFA as rsp or rbp plus an offset, the return address at
 * CFA-8, and where rbp was saved. The rule is kept in a lock-free table,
 * so a walk afterwards costs a table probe and one or two loads per
 * frame. Every load is checked against the thread's stack bounds.
 *
 * Anything outside that simple shape (CFA expressions, signal frames,
 * rbp kept in another register, a full table) makes tc_unwind_cfi()
 * return -1, and the caller uses libunwind or backtrace(3) for that call,
 * so the frames recorded never depend on which walker ran.
 */
#include "lib/compat.h"
#include "lib/capture/internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)

struct dwarf_eh_bases {
	void *tbase;
	void *dbase;
	void *func;
};

typedef const void *(*find_fde_fn)(void *pc, struct dwarf_eh_bases *bases);
static find_fde_fn find_fde;

/* DWARF register numbers on x86-64 */
enum { R_RBP = 6, R_RSP = 7, R_RA = 16 };

/* A frame rule. kind: */
enum { RULE_NONE = 0, RULE_SP, RULE_BP, RULE_END, RULE_FAIL };

struct rule {
	uint8_t kind;       /* CFA = (kind == RULE_SP ? rsp : rbp) + cfa_off */
	bool bp_saved;      /* rbp of the caller is at CFA + bp_off */
	int32_t cfa_off;
	int32_t bp_off;
};

#define TAB_BITS 13
#define TAB_SIZE (1u << TAB_BITS)
#define BUSY ((uintptr_t)1)

struct entry {
	_Atomic uintptr_t ip;  /* 0 empty, BUSY being filled, else the key */
	struct rule r;
};

static struct entry tab[TAB_SIZE];
static bool cfi_ready;
static __thread uintptr_t stack_top __attribute__((tls_model("initial-exec")));

/*
 * Each thread keeps a small direct-mapped copy of the rules it used: the
 * few addresses of a loop that calls MPI stay in the first-level cache
 * instead of being probed in the shared table.
 */
#define MEMO_BITS 8
#define MEMO (1u << MEMO_BITS)
struct memo {
	uintptr_t ip[MEMO];
	struct rule r[MEMO];
};
static __thread struct memo *memo __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_key_init(void)
{
	pthread_key_create(&memo_key, free);
}

static struct memo *memo_new(void)
{
	pthread_once(&memo_once, memo_key_init);
	memo = tc_cap_calloc(1, sizeof(*memo));
	if (memo)
		pthread_setspecific(memo_key, memo);
	return memo;
}

/* ---- reading .eh_frame ------------------------------------------------ */

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((int64_t)1 << shift);
			return v;
		}
	}
	c->bad = true;
	return 0;
}

static uint64_t fixed(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, n); /* little endian */
	c->p += n;
	return v;
}

/* A pointer in DW_EH_PE encoding enc. */
static uintptr_t encoded(struct cur *c, uint8_t enc, const struct dwarf_eh_bases *b)
{
	const uint8_t *at = c->p;
	uint64_t v;

	if (enc == 0xff) /* omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = fixed(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: v = fixed(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case 0x0c: v = fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += (uintptr_t)at; break;
	case 0x20: v += (uintptr_t)b->tbase; break;
	case 0x30: v += (uintptr_t)b->dbase; break;
	case 0x40: v += (uintptr_t)b->func; break;
	default: c->bad = true; return 0;
	}
	if (enc & 0x80) /* indirect */
		c->bad = true;
	return (uintptr_t)v;
}

struct state {
	uint8_t cfa_reg;
	int64_t cfa_off;
	uint8_t bp_how;     /* 0 same value, 1 at CFA + bp_off, 2 unsupported */
	int64_t bp_off;
	uint8_t ra_how;     /* 0 at CFA - 8 (x86-64 default), 1 other, 2 undefined */
};

#define STACK_MAX 8

/* Run the call-frame program [p, end) while its location stays <= target. */
static bool run_program(struct cur *c, struct state *st, const struct state *init,
			uintptr_t *loc, uintptr_t target, uint64_t code_align, int64_t data_align,
			uint8_t fde_enc, const struct dwarf_eh_bases *b)
{
	struct state stack[STACK_MAX];
	int sp = 0;

	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++, hi = op & 0xc0, lo = op & 0x3f;
		uint64_t reg;
		int64_t off;

		if (hi == 0x40) { /* advance_loc */
			if (*loc + lo * code_align > target)
				return true;
			*loc += lo * code_align;
			continue;
		}
		if (hi == 0x80) { /* offset */
			off = (int64_t)uleb(c) * data_align;
			reg = lo;
			goto set_offset;
		}
		if (hi == 0xc0) { /* restore */
			reg = lo;
			goto restore;
		}
		switch (op) {
		case 0x00: /* nop */
			break;
		case 0x01: { /* set_loc */
			uintptr_t nl = encoded(c, fde_enc, b);
			if (nl > target)
				return true;
			*loc = nl;
			break;
		}
		case 0x02: case 0x03: case 0x04: { /* advance_loc1/2/4 */
			uint64_t d = fixed(c, op == 0x02 ? 1 : op == 0x03 ? 2 : 4) * code_align;
			if (*loc + d > target)
				return true;
			*loc += d;
			break;
		}
		case 0x05: /* offset_extended */
			reg = uleb(c);
			off = (int64_t)uleb(c) * data_align;
			goto set_offset;
		case 0x11: /* offset_extended_sf */
			reg = uleb(c);
			off = sleb(c) * data_align;
			goto set_offset;
		case 0x06: /* restore_extended */
			reg = uleb(c);
			goto restore;
		case 0x07: /* undefined */
			reg = uleb(c);
			if (reg == R_RA)
				st->ra_how = 2;
			else if (reg == R_RBP)
				st->bp_how = 2;
			break;
		case 0x08: /* same_value */
			reg = uleb(c);
			if (reg == R_RBP)
				st->bp_how = 0;
			else if (reg == R_RA)
				st->ra_how = 1;
			break;
		case 0x09: /* register */
			reg = uleb(c);
			(void)uleb(c);
			if (reg == R_RBP)
				st->bp_how = 2;
			else if (reg == R_RA)
				st->ra_how = 1;
			break;
		case 0x0a: /* remember_state */
			if (sp == STACK_MAX)
				return false;
			stack[sp++] = *st;
			break;
		case 0x0b: /* restore_state */
			if (sp == 0)
				return false;
			*st = stack[--sp];
			break;
		case 0x0c: /* def_cfa */
			st->cfa_reg = (uint8_t)uleb(c);
			st->cfa_off = (int64_t)uleb(c);
			break;
		case 0x12: /* def_cfa_sf */
			st->cfa_reg = (uint8_t)uleb(c);
			st->cfa_off = sleb(c) * data_align;
			break;
		case 0x0d: /* def_cfa_register */
			st->cfa_reg = (uint8_t)uleb(c);
			break;
		case 0x0e: /* def_cfa_offset */
			st->cfa_off = (int64_t)uleb(c);
			break;
		case 0x13: /* def_cfa_offset_sf */
			st->cfa_off = sleb(c) * data_align;
			break;
		case 0x0f: /* def_cfa_expression */
			st->cfa_reg = 0xff;
			c->p += uleb(c);
			break;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = uleb(c);
			c->p += uleb(c);
			if (reg == R_RBP)
				st->bp_how = 2;
			else if (reg == R_RA)
				st->ra_how = 1;
			break;
		case 0x14: /* val_offset */
		case 0x15: /* val_offset_sf */
			reg = uleb(c);
			if (op == 0x14)
				(void)uleb(c);
			else
				(void)sleb(c);
			if (reg == R_RBP)
				st->bp_how = 2;
			else if (reg == R_RA)
				st->ra_how = 1;
			break;
		case 0x2e: /* GNU_args_size */
			(void)uleb(c);
			break;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(c);
			off = -(int64_t)uleb(c) * data_align;
			goto set_offset;
		default:
			return false;
		}
		continue;
set_offset:
		if (reg == R_RBP) {
			st->bp_how = 1;
			st->bp_off = off;
		} else if (reg == R_RA) {
			st->ra_how = off == -8 ? 0 : 1;
		}
		continue;
restore:
		if (!init)
			return false; /* restore inside the CIE's own program */
		if (reg == R_RBP) {
			st->bp_how = init->bp_how;
			st->bp_off = init->bp_off;
		} else if (reg == R_RA) {
			st->ra_how = init->ra_how;
		}
	}
	return !c->bad && c->p <= c->end;
}

/* Work out the rule at ip (the address inside the call instruction). */
static struct rule derive(uintptr_t ip)
{
	struct rule r = { RULE_FAIL, false, 0, 0 };
	struct dwarf_eh_bases b = { 0, 0, 0 };
	const uint8_t *fde = find_fde ? find_fde((void *)ip, &b) : NULL;
	const uint8_t *cie, *aug;
	struct cur c;
	struct state st, init;
	uint64_t len, code_align;
	int64_t data_align;
	uint8_t fde_enc = 0, version;
	uintptr_t loc, range;
	bool z = false;

	if (!fde) {
		r.kind = RULE_END; /* no unwind information: the stack ends here */
		return r;
	}
	/* the FDE: length, CIE pointer */
	memcpy(&len, fde, 4);
	len &= 0xffffffffu;
	if (len == 0 || len == 0xffffffffu)
		return r;
	{
		uint32_t cie_ptr;
		memcpy(&cie_ptr, fde + 4, 4);
		cie = fde + 4 - cie_ptr;
	}
	/* the CIE */
	{
		uint64_t clen = 0;
		memcpy(&clen, cie, 4);
		clen &= 0xffffffffu;
		if (clen == 0 || clen == 0xffffffffu)
			return r;
		c.p = cie + 8; /* length, CIE id */
		c.end = cie + 4 + clen;
		c.bad = false;
	}
	version = *c.p++;
	if (version != 1 && version != 3)
		return r;
	aug = c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	c.p++;
	code_align = uleb(&c);
	data_align = sleb(&c);
	if (version == 1)
		c.p++;
	else
		(void)uleb(&c);
	for (const uint8_t *a = aug; *a && !c.bad; a++) {
		switch (*a) {
		case 'z':
			z = true;
			(void)uleb(&c);
			break;
		case 'R':
			fde_enc = *c.p++;
			break;
		case 'L':
			c.p++;
			break;
		case 'P': {
			uint8_t penc = *c.p++;
			struct dwarf_eh_bases nb = b;
			(void)encoded(&c, penc & 0x7f, &nb);
			break;
		}
		case 'S': /* signal frame */
		default:
			return r;
		}
	}
	if (!z || c.bad)
		return r;
	memset(&st, 0, sizeof(st));
	st.cfa_reg = 0xff;
	loc = 0;
	if (!run_program(&c, &st, NULL, &loc, UINTPTR_MAX, code_align, data_align, fde_enc, &b))
		return r;
	init = st;
	/* the FDE again: pc_begin, pc_range, augmentation, program */
	c.p = fde + 8;
	c.end = fde + 4 + len;
	c.bad = false;
	loc = encoded(&c, fde_enc, &b);
	range = encoded(&c, fde_enc & 0x0f, &b);
	if (c.bad || ip < loc || ip >= loc + range)
		return r;
	c.p += uleb(&c); /* augmentation data */
	if (!run_program(&c, &st, &init, &loc, ip, code_align, data_align, fde_enc, &b))
		return r;
	if (st.ra_how == 2) {
		r.kind = RULE_END; /* the outermost frame */
		return r;
	}
	if (st.ra_how != 0 || st.bp_how == 2 || (st.cfa_reg != R_RSP && st.cfa_reg != R_RBP) ||
	    st.cfa_off < 8 || st.cfa_off > INT32_MAX || st.bp_off < INT32_MIN ||
	    st.bp_off > INT32_MAX)
		return r;
	r.kind = st.cfa_reg == R_RSP ? RULE_SP : RULE_BP;
	r.cfa_off = (int32_t)st.cfa_off;
	r.bp_saved = st.bp_how == 1;
	r.bp_off = (int32_t)st.bp_off;
	return r;
}

/* The rule at ip, from the table or worked out (and then kept). */
static struct rule lookup(uintptr_t ip)
{
	uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ULL) >> (64 - TAB_BITS));

	for (uint32_t k = 0; k < 16; k++) {
		struct entry *e = &tab[(h + k) & (TAB_SIZE - 1)];
		uintptr_t cur = atomic_load_explicit(&e->ip, memory_order_acquire);

		if (cur == ip)
			return e->r;
		if (cur == 0) {
			uintptr_t expect = 0;
			struct rule r;
			if (!atomic_compare_exchange_strong(&e->ip, &expect, BUSY))
				break; /* another thread took the slot */
			r = derive(ip);
			e->r = r;
			atomic_store_explicit(&e->ip, ip, memory_order_release);
			return r;
		}
	}
	/* being filled by another thread, or no room: the same rule, uncached */
	return derive(ip);
}

static uintptr_t this_stack_top(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 0;
	if (pthread_attr_getstack(&a, &addr, &size) == 0)
		stack_top = (uintptr_t)addr + size;
	pthread_attr_destroy(&a);
	return stack_top;
}

bool tc_unwind_cfi_init(void)
{
	void *h;

	*(void **)&find_fde = dlsym(RTLD_DEFAULT, "_Unwind_Find_FDE");
	if (!find_fde) {
		h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
		if (h)
			*(void **)&find_fde = dlsym(h, "_Unwind_Find_FDE");
	}
	cfi_ready = find_fde != NULL;
	return cfi_ready;
}

int tc_unwind_cfi(void **buf, int max)
{
	uintptr_t ip, sp, bp, top = stack_top ? stack_top : this_stack_top();
	uintptr_t lo;
	int n = 0;
	bool first = true;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	lo = sp;
	if (!top)
		return -1;
	if (TC_UNLIKELY(!memo) && !memo_new())
		return -1;
	while (n < max) {
		/* a return address points after the call: look up the call */
		uintptr_t key = first ? ip : ip - 1;
		struct rule r;
		uintptr_t cfa;

		uint32_t slot = (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - MEMO_BITS));

		if (TC_LIKELY(memo->ip[slot] == key)) {
			r = memo->r[slot];
		} else {
			r = lookup(key);
			memo->ip[slot] = key;
			memo->r[slot] = r;
		}

		if (r.kind == RULE_END)
			return n;
		if (r.kind == RULE_FAIL || r.kind == RULE_NONE)
			return -1;
		cfa = (r.kind == RULE_SP ? sp : bp) + (uintptr_t)(intptr_t)r.cfa_off;
		if (cfa < lo || cfa > top || cfa - 8 < lo || (cfa & 7))
			return -1;
		if (r.bp_saved) {
			uintptr_t at = cfa + (uintptr_t)(intptr_t)r.bp_off;
			if (at < lo || at + 8 > top)
				return -1;
			bp = *(const uintptr_t *)at;
		}
		ip = *(const uintptr_t *)(cfa - 8);
		sp = cfa;
		lo = cfa;
		first = false;
		if (!ip)
			return n;
		buf[n++] = (void *)ip;
	}
	return n;
}

#else /* not x86-64 */

bool tc_unwind_cfi_init(void)
{
	return false;
}

int tc_unwind_cfi(void **buf, int max)
{
	(void)buf;
	(void)max;
	return -1;
}

#endif
