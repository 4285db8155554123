/*
 * calltree.c - a rank's call tree from its recorded call stacks, and the
 * merged call graph of several ranks (Weber slides 16-19) with its DOT,
 * SVG and JSON renderings.
 */
#include "lib/compat.h"
#include "align/align.h"
#include "align/internal.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/json.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper stacks are cut (the outermost frames are kept). */
#define MAX_DEPTH 256u

/* The label of the call of frame k of a site: the callee's name and, for
 * key TC_AKEY_SITE, the return address in the caller (module as runs
 * compare it, offset). */
static uint64_t call_label(const struct tc_aseq_site *s, uint32_t k, int key)
{
	uint64_t h = tc_frame_fn_hash(&s->frames[k], 0x63616c6cULL);

	if (key == TC_AKEY_SITE && k + 1 < s->nframes) {
		const struct tc_aseq_frame *f = &s->frames[k + 1];
		h = tc_hash_mix(h, f->modkey);
		h = tc_hash_mix(h, f->offset);
	}
	return tc_hash_mix(h, 0x6e6f6465ULL);
}

/* ---- call tree ------------------------------------------------------------ */

static size_t tree_add(struct tc_ctree *t, size_t parent, uint64_t label, uint32_t depth,
		       bool leaf, size_t first, const char *fn)
{
	struct tc_ctree_node *nd;
	size_t id = t->n;

	TC_ALLOC_GROW(t->node, t->n + 1, t->alloc);
	nd = &t->node[t->n++];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->depth = depth;
	nd->leaf = leaf;
	nd->first = first;
	nd->last = first + 1;
	nd->fn = fn;
	if (parent != SIZE_MAX) {
		struct tc_ctree_node *p = &t->node[parent];
		TC_ALLOC_GROW(p->child, p->nchild + 1, p->achild);
		p->child[p->nchild++] = id;
	}
	return id;
}

void tc_ctree_build(struct tc_ctree *t, const struct tc_aseq *s)
{
	size_t path[MAX_DEPTH + 2];
	uint64_t plab[MAX_DEPTH + 2], lab[MAX_DEPTH + 2];
	uint32_t open = 0;

	memset(t, 0, sizeof(*t));
	path[0] = tree_add(t, SIZE_MAX, 0, 0, false, 0, "");
	t->node[0].last = s->n;
	for (size_t i = 0; i < s->n; i++) {
		const struct tc_aseq_site *st = tc_aseq_site_of(s, i);
		uint32_t nf = st ? st->nframes : 0, L = TC_MIN(nf, MAX_DEPTH), common = 0;

		/* depth d (1..L) is the call of frame nf - d: outermost first */
		for (uint32_t d = 1; d <= L; d++)
			lab[d] = call_label(st, nf - d, s->key);
		while (common < open && common < L && plab[common + 1] == lab[common + 1])
			common++;
		for (uint32_t d = open; d > common; d--)
			t->node[path[d]].last = i;
		for (uint32_t d = common + 1; d <= L; d++) {
			path[d] = tree_add(t, path[d - 1], lab[d], d, false, i, st->frames[nf - d].fn);
			plab[d] = lab[d];
		}
		open = L;
		tree_add(t, path[L], s->sym[i], L + 1, true, i, "");
	}
	for (uint32_t d = open; d > 0; d--)
		t->node[path[d]].last = s->n;
}

void tc_ctree_release(struct tc_ctree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->node[i].child);
	free(t->node);
	memset(t, 0, sizeof(*t));
}

/* ---- merged call graph -------------------------------------------------------- */

struct cg_node {
	size_t parent;
	char *name;
	bool leaf;
	uint32_t depth;
	size_t *child;
	size_t nchild, achild;
	uint64_t *procs;        /* bitset */
	size_t nprocs;          /* processes present */
	uint64_t events;
	uint64_t hash;          /* of (parent, name, leaf) */
};

struct tc_cgraph {
	size_t nprocs;
	size_t words;
	int32_t *rank;
	struct cg_node *node;
	size_t n, alloc;
	size_t *table;          /* node id + 1, open addressing */
	size_t tsize;
};

static uint64_t node_hash(size_t parent, const char *name, bool leaf)
{
	return tc_hash64(name, strlen(name), tc_hash_mix(parent, leaf));
}

static void table_put(struct tc_cgraph *g, size_t id)
{
	size_t mask = g->tsize - 1, h = (size_t)g->node[id].hash & mask;

	while (g->table[h])
		h = (h + 1) & mask;
	g->table[h] = id + 1;
}

static size_t cg_new(struct tc_cgraph *g, size_t parent, const char *name, bool leaf)
{
	struct cg_node *nd;
	size_t id = g->n;

	if ((g->n + 1) * 2 > g->tsize) {
		g->tsize = g->tsize ? g->tsize * 2 : 64;
		free(g->table);
		g->table = tc_xcalloc(g->tsize, sizeof(*g->table));
		for (size_t i = 0; i < g->n; i++)
			table_put(g, i);
	}
	TC_ALLOC_GROW(g->node, g->n + 1, g->alloc);
	nd = &g->node[g->n++];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->name = tc_xstrdup(name);
	nd->leaf = leaf;
	nd->depth = parent == SIZE_MAX ? 0 : g->node[parent].depth + 1;
	nd->procs = tc_xcalloc(g->words ? g->words : 1, sizeof(uint64_t));
	nd->hash = node_hash(parent, name, leaf);
	if (parent != SIZE_MAX) {
		struct cg_node *p = &g->node[parent];
		TC_ALLOC_GROW(p->child, p->nchild + 1, p->achild);
		p->child[p->nchild++] = id;
	}
	table_put(g, id);
	return id;
}

static size_t cg_child(struct tc_cgraph *g, size_t parent, const char *name, bool leaf)
{
	uint64_t hv = node_hash(parent, name, leaf);
	size_t mask = g->tsize - 1, h = (size_t)hv & mask;

	while (g->table[h]) {
		const struct cg_node *nd = &g->node[g->table[h] - 1];
		if (nd->hash == hv && nd->parent == parent && nd->leaf == leaf &&
		    !strcmp(nd->name, name))
			return g->table[h] - 1;
		h = (h + 1) & mask;
	}
	return cg_new(g, parent, name, leaf);
}

struct tc_cgraph *tc_cgraph_new(size_t nprocs)
{
	struct tc_cgraph *g = tc_xcalloc(1, sizeof(*g));

	g->nprocs = nprocs;
	g->words = (nprocs + 63) / 64;
	g->rank = tc_xmalloc((nprocs ? nprocs : 1) * sizeof(*g->rank));
	for (size_t i = 0; i < nprocs; i++)
		g->rank[i] = (int32_t)i;
	cg_new(g, SIZE_MAX, "", false);
	/* the root stands for every process, so that a top-level function
	 * missing in some shows them as its gap */
	for (size_t p = 0; p < nprocs; p++)
		g->node[0].procs[p / 64] |= (uint64_t)1 << (p % 64);
	g->node[0].nprocs = nprocs;
	return g;
}

void tc_cgraph_free(struct tc_cgraph **gp)
{
	struct tc_cgraph *g = *gp;

	if (!g)
		return;
	*gp = NULL;
	for (size_t i = 0; i < g->n; i++) {
		free(g->node[i].name);
		free(g->node[i].child);
		free(g->node[i].procs);
	}
	free(g->node);
	free(g->table);
	free(g->rank);
	free(g);
}

void tc_cgraph_set_rank(struct tc_cgraph *g, size_t proc, int32_t rank)
{
	if (proc < g->nprocs)
		g->rank[proc] = rank;
}

static const char *op_label(unsigned op, char *buf, size_t len)
{
	const char *n = tc_op_name(op);

	if (n)
		return n;
	snprintf(buf, len, "MPI_op_%u", op);
	return buf;
}

void tc_cgraph_add(struct tc_cgraph *g, size_t proc, const struct tc_aseq *s)
{
	/* per call site (and one more for none): the leaf of the last op */
	struct cache {
		uint32_t op;
		size_t node;
	} *cache = tc_xmalloc((s->nsites + 1) * sizeof(*cache));
	uint64_t bit = (uint64_t)1 << (proc % 64);
	size_t w = proc / 64;

	if (proc >= g->nprocs)
		return;
	for (size_t i = 0; i <= s->nsites; i++)
		cache[i].op = UINT32_MAX;
	for (size_t i = 0; i < s->n; i++) {
		const struct tc_aseq_event *e = &s->ev[i];
		size_t slot = e->site == UINT32_MAX ? s->nsites : e->site, cur;

		if (cache[slot].op != e->op) {
			const struct tc_aseq_site *st = tc_aseq_site_of(s, i);
			uint32_t nf = st ? TC_MIN(st->nframes, MAX_DEPTH) : 0;
			char buf[32];

			cur = 0;
			for (uint32_t d = 1; d <= nf; d++)
				cur = cg_child(g, cur, st->frames[st->nframes - d].fn, false);
			cur = cg_child(g, cur, op_label(e->op, buf, sizeof(buf)), true);
			cache[slot].op = e->op;
			cache[slot].node = cur;
		}
		for (cur = cache[slot].node; cur != SIZE_MAX; cur = g->node[cur].parent) {
			struct cg_node *nd = &g->node[cur];
			if (!(nd->procs[w] & bit)) {
				nd->procs[w] |= bit;
				nd->nprocs++;
			}
			nd->events++;
		}
	}
	free(cache);
}

void tc_cgraph_info(const struct tc_cgraph *g, struct tc_cgraph_info *info)
{
	memset(info, 0, sizeof(*info));
	for (size_t i = 1; i < g->n; i++) {
		const struct cg_node *nd = &g->node[i];
		info->nodes++;
		if (nd->parent != 0)
			info->edges++;
		info->leaves += nd->leaf;
		info->partial += nd->nprocs < g->nprocs;
		if (nd->depth > info->depth)
			info->depth = nd->depth;
	}
}

/* ---- renderings ------------------------------------------------------------ */

/* Ranks of the processes in bits (and, if mask, not in mask) as
 * "0,3,5-7", at most max runs then ",...". */
static void ranks_text(const struct tc_cgraph *g, const uint64_t *bits, const uint64_t *mask,
		       size_t max, struct tc_strbuf *out)
{
	int32_t *r = tc_xmalloc((g->nprocs ? g->nprocs : 1) * sizeof(*r));
	size_t n = 0, runs = 0;

	for (size_t p = 0; p < g->nprocs; p++) {
		bool in = (bits[p / 64] >> (p % 64)) & 1;
		if (mask)
			in = ((mask[p / 64] >> (p % 64)) & 1) && !in;
		if (in)
			r[n++] = g->rank[p];
	}
	/* ranks in increasing order (the caller may number processes freely) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && r[j - 1] > r[j]; j--) {
			int32_t x = r[j];
			r[j] = r[j - 1];
			r[j - 1] = x;
		}
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		if (runs == max) {
			tc_strbuf_addstr(out, ",...");
			break;
		}
		tc_strbuf_addf(out, "%s%" PRId32, runs ? "," : "", r[i]);
		if (j > i)
			tc_strbuf_addf(out, "-%" PRId32, r[j]);
		runs++;
		i = j + 1;
	}
	free(r);
}

static void fill_colour(const struct tc_cgraph *g, const struct cg_node *nd, char *buf,
			size_t len)
{
	double f;
	int r, gr, b;

	if (nd->nprocs >= g->nprocs) {
		snprintf(buf, len, "#e0e0e0");
		return;
	}
	/* blue (few processes) to red (many) */
	f = g->nprocs > 1 ? (double)(nd->nprocs - 1) / (double)(g->nprocs - 1) : 1.0;
	r = (int)(0x6b + f * (0xfb - 0x6b) + 0.5);
	gr = (int)(0xae + f * (0x6a - 0xae) + 0.5);
	b = (int)(0xd6 + f * (0x4a - 0xd6) + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", r, gr, b);
}

static void dot_escape(struct tc_strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			tc_strbuf_addch(out, '\\');
		tc_strbuf_addch(out, *s);
	}
}

void tc_cgraph_dot(const struct tc_cgraph *g, struct tc_strbuf *out)
{
	char col[16];

	tc_strbuf_addf(out, "digraph merged_call_graph {\n"
		       "\tgraph [rankdir=TB, fontname=\"Helvetica\", labelloc=t, "
		       "label=\"merged call graph of %zu processes\"];\n"
		       "\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
		       "fontsize=10];\n"
		       "\tedge [arrowsize=0.6];\n", g->nprocs);
	for (size_t i = 1; i < g->n; i++) {
		const struct cg_node *nd = &g->node[i];
		const struct cg_node *p = &g->node[nd->parent];
		fill_colour(g, nd, col, sizeof(col));
		tc_strbuf_addf(out, "\tn%zu [label=\"", i);
		dot_escape(out, nd->name);
		tc_strbuf_addf(out, "\\n%zu/%zu processes, %" PRIu64 " events", nd->nprocs,
			       g->nprocs, nd->events);
		if (nd->nprocs < p->nprocs) {
			tc_strbuf_addstr(out, "\\ngap: ");
			ranks_text(g, nd->procs, p->procs, 6, out);
		}
		tc_strbuf_addf(out, "\", fillcolor=\"%s\"%s];\n", col,
			       nd->leaf ? ", shape=ellipse" : "");
	}
	for (size_t i = 1; i < g->n; i++)
		if (g->node[i].parent != 0)
			tc_strbuf_addf(out, "\tn%zu -> n%zu;\n", g->node[i].parent, i);
	tc_strbuf_addstr(out, "}\n");
}

static void xml_escape(struct tc_strbuf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s; s++, n++) {
		if (max && n + 2 >= max && s[1] && s[2]) {
			tc_strbuf_addstr(out, "..");
			return;
		}
		switch (*s) {
		case '&':
			tc_strbuf_addstr(out, "&amp;");
			break;
		case '<':
			tc_strbuf_addstr(out, "&lt;");
			break;
		case '>':
			tc_strbuf_addstr(out, "&gt;");
			break;
		case '"':
			tc_strbuf_addstr(out, "&quot;");
			break;
		default:
			tc_strbuf_addch(out, *s);
		}
	}
}

enum { BOX_W = 176, BOX_H = 44, GAP_X = 16, GAP_Y = 44, MARGIN = 20, TOP = 56 };

/* Leaf slots from the left, internal nodes centred over their children. */
static double layout(const struct tc_cgraph *g, size_t id, double *x, size_t *slot)
{
	const struct cg_node *nd = &g->node[id];

	if (!nd->nchild) {
		x[id] = (double)(*slot)++;
		return x[id];
	}
	{
		double lo = layout(g, nd->child[0], x, slot), hi = lo;
		for (size_t c = 1; c < nd->nchild; c++)
			hi = layout(g, nd->child[c], x, slot);
		x[id] = (lo + hi) / 2;
	}
	return x[id];
}

void tc_cgraph_svg(const struct tc_cgraph *g, struct tc_strbuf *out)
{
	double *x = tc_xcalloc(g->n, sizeof(*x));
	size_t slots = 0, width, height;
	uint32_t depth = 0;
	char col[16];

	for (size_t c = 0; c < g->node[0].nchild; c++)
		layout(g, g->node[0].child[c], x, &slots);
	for (size_t i = 1; i < g->n; i++)
		depth = TC_MAX(depth, g->node[i].depth);
	width = 2 * MARGIN + TC_MAX(slots, 3) * (BOX_W + GAP_X);
	height = TOP + MARGIN + depth * (BOX_H + GAP_Y);
	tc_strbuf_addf(out,
		       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
		       "viewBox=\"0 0 %zu %zu\" font-family=\"Helvetica, Arial, sans-serif\">\n"
		       "<title>merged call graph of %zu processes</title>\n"
		       "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		       "<text x=\"%d\" y=\"24\" font-size=\"14\">merged call graph of %zu "
		       "processes</text>\n",
		       width, height, width, height, g->nprocs, MARGIN, g->nprocs);
	/* legend: all, many, few */
	{
		static const char *const what[] = { "all processes", "many", "few" };
		struct cg_node fake;
		memset(&fake, 0, sizeof(fake));
		for (int k = 0; k < 3; k++) {
			fake.nprocs = k == 0 ? g->nprocs : k == 1 ? (g->nprocs > 1 ? g->nprocs - 1 : 0) : 1;
			if (k && g->nprocs <= 1)
				break;
			fill_colour(g, &fake, col, sizeof(col));
			tc_strbuf_addf(out, "<rect x=\"%d\" y=\"34\" width=\"12\" height=\"12\" "
				       "fill=\"%s\" stroke=\"#555555\"/><text x=\"%d\" y=\"44\" "
				       "font-size=\"11\">%s</text>\n", MARGIN + k * 130, col,
				       MARGIN + k * 130 + 16, what[k]);
		}
	}
	for (size_t i = 1; i < g->n; i++) {
		const struct cg_node *nd = &g->node[i];
		if (nd->parent == 0)
			continue;
		tc_strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
			       "stroke=\"#777777\"/>\n",
			       (int)(MARGIN + x[nd->parent] * (BOX_W + GAP_X) + BOX_W / 2),
			       (int)(TOP + (nd->depth - 2) * (BOX_H + GAP_Y) + BOX_H),
			       (int)(MARGIN + x[i] * (BOX_W + GAP_X) + BOX_W / 2),
			       (int)(TOP + (nd->depth - 1) * (BOX_H + GAP_Y)));
	}
	for (size_t i = 1; i < g->n; i++) {
		const struct cg_node *nd = &g->node[i];
		const struct cg_node *p = &g->node[nd->parent];
		int bx = (int)(MARGIN + x[i] * (BOX_W + GAP_X));
		int by = (int)(TOP + (nd->depth - 1) * (BOX_H + GAP_Y));
		bool gap = nd->nprocs < p->nprocs;

		fill_colour(g, nd, col, sizeof(col));
		tc_strbuf_addstr(out, "<g><title>");
		xml_escape(out, nd->name, 0);
		tc_strbuf_addf(out, ": %zu of %zu processes, %" PRIu64 " events; ranks ",
			       nd->nprocs, g->nprocs, nd->events);
		ranks_text(g, nd->procs, NULL, 64, out);
		if (gap) {
			tc_strbuf_addstr(out, "; gap: ");
			ranks_text(g, nd->procs, p->procs, 64, out);
		}
		tc_strbuf_addf(out, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			       "rx=\"%d\" fill=\"%s\" stroke=\"%s\"/>\n", bx, by, BOX_W, BOX_H,
			       nd->leaf ? BOX_H / 2 : 6, col, gap ? "#b00000" : "#555555");
		tc_strbuf_addf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
			       "text-anchor=\"middle\">", bx + BOX_W / 2, by + 16);
		xml_escape(out, nd->name, 27);
		tc_strbuf_addf(out, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"10\" "
			       "text-anchor=\"middle\" fill=\"#333333\">%zu/%zu procs, %" PRIu64
			       " ev</text></g>\n", bx + BOX_W / 2, by + 33, nd->nprocs, g->nprocs,
			       nd->events);
	}
	tc_strbuf_addstr(out, "</svg>\n");
	free(x);
}

void tc_cgraph_json(const struct tc_cgraph *g, struct tc_strbuf *out)
{
	struct tc_json *o = tc_json_object(), *nodes = tc_json_array(), *ranks = tc_json_array();
	struct tc_strbuf sb = TC_STRBUF_INIT;
	char *s;

	tc_json_set_int(o, "schema", 1);
	tc_json_set_uint(o, "processes", g->nprocs);
	for (size_t p = 0; p < g->nprocs; p++)
		tc_json_append(ranks, tc_json_int(g->rank[p]));
	tc_json_set(o, "ranks", ranks);
	for (size_t i = 1; i < g->n; i++) {
		const struct cg_node *nd = &g->node[i];
		const struct cg_node *p = &g->node[nd->parent];
		struct tc_json *j = tc_json_object();
		tc_json_set_uint(j, "id", i);
		if (nd->parent)
			tc_json_set_uint(j, "parent", nd->parent);
		else
			tc_json_set(j, "parent", tc_json_null());
		tc_json_set_str(j, "name", nd->name);
		tc_json_set_str(j, "kind", nd->leaf ? "mpi" : "function");
		tc_json_set_uint(j, "depth", nd->depth);
		tc_json_set_uint(j, "processes", nd->nprocs);
		tc_json_set_uint(j, "events", nd->events);
		tc_strbuf_reset(&sb);
		ranks_text(g, nd->procs, NULL, SIZE_MAX, &sb);
		tc_json_set_str(j, "ranks", sb.buf ? sb.buf : "");
		tc_strbuf_reset(&sb);
		ranks_text(g, nd->procs, p->procs, SIZE_MAX, &sb);
		tc_json_set_str(j, "gaps", sb.buf ? sb.buf : "");
		tc_json_append(nodes, j);
	}
	tc_json_set(o, "nodes", nodes);
	s = tc_json_dumps(o, TC_JSON_COMPACT);
	tc_strbuf_addstr(out, s);
	tc_strbuf_addch(out, '\n');
	free(s);
	tc_strbuf_release(&sb);
	tc_json_free(o);
}
