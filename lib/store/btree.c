/*
 * lib/store/btree.c — the ordered index: a B+-tree on the TM API, used for
 * ordered tables (primary key -> record) and for secondary indexes
 * (secondary key -> record).
 *
 * The layout and invariants B1-B3 are in store_internal.h.  Every access
 * to a published node goes through tm_read_u64/tm_write_u64/TM_LOAD/
 * TM_STORE, except its level, which is frozen.  Under the opacity every
 * backend gives, a transaction sees the invariants hold on every node it
 * reaches, so the code below trusts counts and bounds it reads.
 *
 * Insert descends from the root recording the path, puts the entry in its
 * leaf and, if the leaf is full, splits it (in halves, or most entries
 * kept left for an append) and inserts the new right node into the
 * parent, splitting upwards as far as needed; a root split grows the tree
 * by one level.  The new node and a new root are filled with plain stores
 * before the transactional store that publishes them (tm.h: unpublished
 * memory).
 *
 * Delete removes the entry; a node left empty is unlinked from its parent
 * and freed, recursively, and an inner root left with a single child gives
 * way to it (B3).  Underfull nodes are not merged: a merge or a borrow
 * writes a sibling and the separator above, so deletes would conflict with
 * operations elsewhere in the tree; removing only empty nodes keeps each
 * delete on its own path.  Deletes that sweep a key range from one end
 * (TPC-C's new-orders) still leave no empty leaves behind, so scans from
 * that end stay short.
 *
 * Scans keep the path from the root instead of sibling links: moving to
 * the next leaf climbs to the nearest ancestor with a next child and goes
 * down its edge, two visits per level per subtree left, so a scan costs
 * O(depth + entries visited).  Sibling links would be written by every
 * split and by every removal of an empty leaf (both neighbours, for
 * descending scans), adding conflicts between operations on neighbouring
 * leaves; the path costs nothing to keep.  The separators are lower bounds
 * of their subtrees, so a scan stops without descending into a subtree
 * that starts above its range (store_first on an empty range is O(depth)).
 */
#include "store_internal.h"

#include <stdlib.h>

#define BTREE_HALF ((BTREE_FANOUT + 1) / 2)   /* entries kept left in a split */
#define BTREE_APPEND_KEEP (BTREE_FANOUT - 3)  /* ... in the split of an append */

/* The path of a descent: node[d] at depth d (node[0] the root,
 * node[depth - 1] the leaf), its count as read, and for inner nodes the
 * child taken. */
typedef struct btree_path {
	btree_node_t *node[BTREE_MAX_DEPTH];
	unsigned count[BTREE_MAX_DEPTH];
	unsigned idx[BTREE_MAX_DEPTH];
	unsigned depth;
} btree_path_t;

/* ---- nodes ---------------------------------------------------------------- */

static inline unsigned btree_read_count(btree_node_t *n)
{
	return (unsigned)tm_read_u64(&n->count);
}

static inline uint64_t btree_read_key(btree_node_t *n, unsigned i)
{
	return tm_read_u64(&n->key[i]);
}

/* A new node, unpublished: the caller fills it with plain stores.  Inside
 * a transaction the block is freed again if the attempt aborts. */
static btree_node_t *btree_node_new(uint64_t level, const char *call)
{
	btree_node_t *n = tm_malloc(sizeof *n);
	if (store_unlikely(n == NULL))
		store_abort(call, "out of memory for a B+-tree node");
	n->count = 0;
	n->level = level;
	return n;
}

/* Inner node n (count c >= 1): the child whose range holds key, the
 * largest i >= 1 with key[i] <= key, else 0. */
static unsigned btree_child_for(btree_node_t *n, unsigned c, uint64_t key)
{
	unsigned lo = 1, hi = c;   /* the first i in [1, c) with key[i] > key */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (btree_read_key(n, mid) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Leaf n (count c): the first i with key[i] >= key, or c. */
static unsigned btree_leaf_lower(btree_node_t *n, unsigned c, uint64_t key)
{
	unsigned lo = 0, hi = c;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (btree_read_key(n, mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Put (key, ptr) at position pos of n (count c < BTREE_FANOUT), shifting
 * the entries from pos one place right.  For an inner node pos >= 1: the
 * new child comes right after the one that split. */
static void btree_node_put(btree_node_t *n, unsigned c, unsigned pos, uint64_t key, void *ptr)
{
	for (unsigned j = c; j > pos; j--) {
		tm_write_u64(&n->key[j], btree_read_key(n, j - 1));
		TM_STORE(&n->ptr[j], TM_LOAD(&n->ptr[j - 1]));
	}
	tm_write_u64(&n->key[pos], key);
	TM_STORE(&n->ptr[pos], ptr);
	tm_write_u64(&n->count, c + 1);
}

/* Remove entry pos of n (count c), shifting the rest one place left.  The
 * slot left behind past the count keeps a stale pointer nobody reads. */
static void btree_node_remove_at(btree_node_t *n, unsigned c, unsigned pos)
{
	for (unsigned j = pos; j + 1 < c; j++) {
		tm_write_u64(&n->key[j], btree_read_key(n, j + 1));
		TM_STORE(&n->ptr[j], TM_LOAD(&n->ptr[j + 1]));
	}
	tm_write_u64(&n->count, c - 1);
}

/* n is full; (key, ptr) goes at pos.  Of the BTREE_FANOUT + 1 entries n
 * keeps the first ones and a new node, returned, takes the rest: half and
 * half, but for an entry past n's last one (an append: ascending keys, as
 * TPC-C's orders come within a district) n keeps BTREE_APPEND_KEEP, so
 * that appends leave nodes mostly full instead of half empty.  Not all
 * BTREE_FANOUT: a node left full would split again at its next insert,
 * and appends into the gap after it could then split the same path up to
 * the root every few inserts; with a few slots free every split of a node
 * needs three inserts into it at least, so the depth stays logarithmic.
 * *sep is the new node's lower bound: its first key for a leaf; for an
 * inner node the bound that came with its first child (its key[0] keeps
 * it, meaning nothing there).  Either way every key left of it in the
 * subtree is smaller (B1). */
static btree_node_t *btree_split_node(btree_node_t *n, unsigned pos, uint64_t key, void *ptr,
                                      uint64_t *sep, const char *call)
{
	unsigned keep = pos == BTREE_FANOUT ? BTREE_APPEND_KEEP : BTREE_HALF;
	uint64_t k[BTREE_FANOUT + 1];
	void *v[BTREE_FANOUT + 1];
	for (unsigned j = 0, o = 0; j <= BTREE_FANOUT; j++) {
		if (j == pos) {
			k[j] = key;
			v[j] = ptr;
		} else if (j >= keep || j > pos) {
			/* only what moves: n keeps its entries before keep */
			k[j] = btree_read_key(n, o);
			v[j] = TM_LOAD(&n->ptr[o]);
			o++;
		} else {
			o++;
		}
	}
	btree_node_t *r = btree_node_new(n->level, call);
	for (unsigned j = keep; j <= BTREE_FANOUT; j++) {
		r->key[j - keep] = k[j];
		r->ptr[j - keep] = v[j];
	}
	r->count = BTREE_FANOUT + 1 - keep;
	/* n keeps its entries before pos as they are. */
	for (unsigned j = pos; j < keep; j++) {
		tm_write_u64(&n->key[j], k[j]);
		TM_STORE(&n->ptr[j], v[j]);
	}
	tm_write_u64(&n->count, keep);
	*sep = k[keep];
	return r;
}

/* Walk from the root to the leaf whose range holds key, recording the
 * path; returns the leaf. */
static btree_node_t *btree_descend(btree_t *bt, uint64_t key, btree_path_t *p)
{
	btree_node_t *n = TM_LOAD(&bt->root);
	unsigned d = 0;
	for (;;) {
		unsigned c = btree_read_count(n);
		p->node[d] = n;
		p->count[d] = c;
		if (n->level == 0) {
			p->depth = d + 1;
			return n;
		}
		unsigned i = btree_child_for(n, c, key);
		p->idx[d++] = i;
		n = TM_LOAD(&n->ptr[i]);
	}
}

/* ---- get, insert, delete ---------------------------------------------------- */

void *btree_get(btree_t *bt, uint64_t key)
{
	btree_node_t *n = TM_LOAD(&bt->root);
	while (n->level != 0)
		n = TM_LOAD(&n->ptr[btree_child_for(n, btree_read_count(n), key)]);
	unsigned c = btree_read_count(n);
	unsigned i = btree_leaf_lower(n, c, key);
	if (i < c && btree_read_key(n, i) == key)
		return TM_LOAD(&n->ptr[i]);
	return NULL;
}

/* The node at depth d of the path split; child, with lower bound sep, goes
 * right after it in its parent (depth d - 1), or in a new root. */
static void btree_insert_child(btree_t *bt, btree_path_t *p, unsigned d, uint64_t sep,
                               btree_node_t *child)
{
	while (d > 0) {
		d--;
		btree_node_t *n = p->node[d];
		unsigned c = p->count[d];
		unsigned pos = p->idx[d] + 1;
		if (c < BTREE_FANOUT) {
			btree_node_put(n, c, pos, sep, child);
			return;
		}
		child = btree_split_node(n, pos, sep, child, &sep, "store_insert");
	}
	/* The root split: a new root above it and its new sibling (B3: two
	 * children). */
	btree_node_t *old = p->node[0];
	if (store_unlikely(old->level + 1 >= BTREE_MAX_DEPTH))
		store_abort("store_insert", "B+-tree deeper than %d levels", BTREE_MAX_DEPTH);
	btree_node_t *root = btree_node_new(old->level + 1, "store_insert");
	root->ptr[0] = old;
	root->key[0] = 0;
	root->key[1] = sep;
	root->ptr[1] = child;
	root->count = 2;
	TM_STORE(&bt->root, root);
}

bool btree_insert(btree_t *bt, uint64_t key, void *val)
{
	btree_path_t p;
	btree_node_t *leaf = btree_descend(bt, key, &p);
	unsigned c = p.count[p.depth - 1];
	unsigned i = btree_leaf_lower(leaf, c, key);
	if (i < c && btree_read_key(leaf, i) == key)
		return false;
	if (c < BTREE_FANOUT) {
		btree_node_put(leaf, c, i, key, val);
		return true;
	}
	uint64_t sep;
	btree_node_t *right = btree_split_node(leaf, i, key, val, &sep, "store_insert");
	btree_insert_child(bt, &p, p.depth - 1, sep, right);
	return true;
}

/* The inner root has one child left: the child becomes the root, and so
 * on down while that one has a single child too (B3). */
static void btree_collapse_root(btree_t *bt, btree_node_t *root)
{
	for (;;) {
		btree_node_t *child = TM_LOAD(&root->ptr[0]);
		TM_STORE(&bt->root, child);
		tm_free(root);
		if (child->level == 0 || btree_read_count(child) != 1)
			return;
		root = child;
	}
}

/* The node at depth d >= 1 of the path is empty: free it and remove it
 * from its parent, and so on up while that leaves the parent empty (B3).
 * Removing child i widens the range of child i - 1 (or, for i = 0, of the
 * new child 0) over the empty one's: the bounds stay true (B1). */
static void btree_remove_empty(btree_t *bt, btree_path_t *p, unsigned d)
{
	for (;;) {
		tm_free(p->node[d]);
		d--;
		btree_node_t *n = p->node[d];
		unsigned c = p->count[d];
		btree_node_remove_at(n, c, p->idx[d]);
		if (d == 0) {
			/* An inner root has at least two children (B3), so one is
			 * left at least. */
			if (c - 1 == 1)
				btree_collapse_root(bt, n);
			return;
		}
		if (c - 1 > 0)
			return;
	}
}

void *btree_delete(btree_t *bt, uint64_t key)
{
	btree_path_t p;
	btree_node_t *leaf = btree_descend(bt, key, &p);
	unsigned c = p.count[p.depth - 1];
	unsigned i = btree_leaf_lower(leaf, c, key);
	if (i == c || btree_read_key(leaf, i) != key)
		return NULL;
	void *val = TM_LOAD(&leaf->ptr[i]);
	btree_node_remove_at(leaf, c, i);
	if (c == 1 && p.depth > 1)
		btree_remove_empty(bt, &p, p.depth - 1);
	return val;
}

/* ---- scans ---------------------------------------------------------------- */

/* Fill the path below depth d, from node n, along its leftmost (dir
 * STORE_ASC) or rightmost edge down to a leaf; returns the leaf. */
static btree_node_t *btree_descend_edge(btree_path_t *p, unsigned d, btree_node_t *n, int dir)
{
	for (;;) {
		unsigned c = btree_read_count(n);
		p->node[d] = n;
		p->count[d] = c;
		if (n->level == 0)
			return n;
		/* Non-root inner nodes have a child at least (B3). */
		unsigned i = dir == STORE_ASC ? 0 : c - 1;
		p->idx[d++] = i;
		n = TM_LOAD(&n->ptr[i]);
	}
}

/* The leaf after (STORE_ASC) or before (STORE_DESC) the path's leaf, the
 * path moved to it; NULL if there is none or if every key beyond lies
 * outside the scan's range: above hi ascending, below lo descending. */
static btree_node_t *btree_next_leaf(btree_path_t *p, int dir, uint64_t lo, uint64_t hi)
{
	for (unsigned d = p->depth - 1; d-- > 0;) {
		btree_node_t *n = p->node[d];
		unsigned i = p->idx[d];
		if (dir == STORE_ASC) {
			if (i + 1 == p->count[d])
				continue;
			/* key[i + 1] bounds the next subtree from below. */
			if (btree_read_key(n, i + 1) > hi)
				return NULL;
			i++;
		} else {
			if (i == 0)
				continue;
			/* Every key left of child i is below key[i]. */
			if (btree_read_key(n, i) <= lo)
				return NULL;
			i--;
		}
		p->idx[d] = i;
		return btree_descend_edge(p, d + 1, TM_LOAD(&n->ptr[i]), dir);
	}
	return NULL;
}

size_t btree_scan(btree_t *bt, uint64_t lo, uint64_t hi, int dir,
                  btree_visit_fn fn, void *arg)
{
	if (lo > hi)
		return 0;
	btree_path_t p;
	size_t visited = 0;
	btree_node_t *leaf = btree_descend(bt, dir == STORE_ASC ? lo : hi, &p);
	unsigned c = p.count[p.depth - 1];
	if (dir == STORE_ASC) {
		unsigned i = btree_leaf_lower(leaf, c, lo);
		for (;;) {
			for (; i < c; i++) {
				uint64_t k = btree_read_key(leaf, i);
				if (k > hi)
					return visited;
				visited++;
				if (fn(k, TM_LOAD(&leaf->ptr[i]), arg))
					return visited;
			}
			leaf = btree_next_leaf(&p, dir, lo, hi);
			if (leaf == NULL)
				return visited;
			c = p.count[p.depth - 1];
			i = 0;
		}
	}
	/* Descending: from the last key <= hi. */
	unsigned i = btree_leaf_lower(leaf, c, hi);
	if (i < c && btree_read_key(leaf, i) == hi)
		i++;
	for (;;) {
		for (; i > 0; i--) {
			uint64_t k = btree_read_key(leaf, i - 1);
			if (k < lo)
				return visited;
			visited++;
			if (fn(k, TM_LOAD(&leaf->ptr[i - 1]), arg))
				return visited;
		}
		leaf = btree_next_leaf(&p, dir, lo, hi);
		if (leaf == NULL)
			return visited;
		i = p.count[p.depth - 1];
	}
}

typedef struct btree_edge_out {
	uint64_t key;
	void *val;
} btree_edge_out_t;

static int btree_edge_visit(uint64_t key, void *val, void *arg)
{
	btree_edge_out_t *out = arg;
	out->key = key;
	out->val = val;
	return 1;
}

/* A scan that stops at its first entry: one descent, and at most one move
 * to a neighbouring leaf (non-root leaves are never empty, B3), so
 * O(depth). */
void *btree_edge(btree_t *bt, uint64_t lo, uint64_t hi, int dir, uint64_t *key)
{
	btree_edge_out_t out = { 0, NULL };
	btree_scan(bt, lo, hi, dir, btree_edge_visit, &out);
	if (out.val != NULL && key != NULL)
		*key = out.key;
	return out.val;
}

/* ---- setup, teardown, quiescent walks (plain accesses) ------------------------- */

int btree_init(btree_t *bt)
{
	btree_node_t *leaf = malloc(sizeof *leaf);
	if (leaf == NULL)
		return -1;
	leaf->count = 0;
	leaf->level = 0;
	bt->root = leaf;
	return 0;
}

static void btree_free_subtree(btree_node_t *n, void (*free_val)(void *val))
{
	if (n->level == 0) {
		if (free_val != NULL)
			for (uint64_t i = 0; i < n->count; i++)
				free_val(n->ptr[i]);
	} else {
		for (uint64_t i = 0; i < n->count; i++)
			btree_free_subtree(n->ptr[i], free_val);
	}
	free(n);
}

/* No transaction uses the tree (store_table_destroy's precondition), so
 * its blocks go straight back to the allocator. */
void btree_destroy(btree_t *bt, void (*free_val)(void *val))
{
	if (bt->root != NULL)
		btree_free_subtree(bt->root, free_val);
	bt->root = NULL;
}

static size_t btree_count_subtree(const btree_node_t *n)
{
	if (n->level == 0)
		return n->count;
	size_t sum = 0;
	for (uint64_t i = 0; i < n->count; i++)
		sum += btree_count_subtree(n->ptr[i]);
	return sum;
}

size_t btree_count(const btree_t *bt)
{
	return btree_count_subtree(bt->root);
}

bool btree_is_empty_root(const btree_t *bt)
{
	return bt->root->level == 0 && bt->root->count == 0;
}

static int btree_walk_subtree(const btree_node_t *n,
                              int (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	for (uint64_t i = 0; i < n->count; i++) {
		int rc = n->level == 0 ? fn(n->key[i], n->ptr[i], arg)
		                       : btree_walk_subtree(n->ptr[i], fn, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int btree_walk(const btree_t *bt, int (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	return btree_walk_subtree(bt->root, fn, arg);
}

/* B1-B3 below n, which must be at level and hold keys in [lo, hi) (no
 * upper bound without has_hi). */
static int btree_check_node(const btree_node_t *n, uint64_t level, uint64_t lo, uint64_t hi,
                            bool has_hi, bool is_root, const char *what)
{
	if (n == NULL)
		return potm_error("%s: a NULL child at level %llu", what,
		                  (unsigned long long)level);
	if (n->level != level)
		return potm_error("%s: a node at level %llu where level %llu belongs (B2)", what,
		                  (unsigned long long)n->level, (unsigned long long)level);
	uint64_t c = n->count;
	if (c > BTREE_FANOUT)
		return potm_error("%s: a node at level %llu holds %llu entries (at most %d)", what,
		                  (unsigned long long)level, (unsigned long long)c, BTREE_FANOUT);
	if (c == 0 && !(is_root && level == 0))
		return potm_error("%s: an empty %s node at level %llu (B3)", what,
		                  is_root ? "root" : "non-root", (unsigned long long)level);
	if (is_root && level > 0 && c < 2)
		return potm_error("%s: the inner root has a single child (B3)", what);
	/* For inner nodes key[0] means nothing: the checks start at 1. */
	for (uint64_t i = level == 0 ? 0 : 1; i < c; i++) {
		uint64_t k = n->key[i];
		bool ordered = i == 0 || (level > 0 && i == 1) || k > n->key[i - 1];
		if (!ordered)
			return potm_error("%s: keys out of order at level %llu: %#llx after %#llx (B1)",
			                  what, (unsigned long long)level, (unsigned long long)k,
			                  (unsigned long long)n->key[i - 1]);
		if (k < lo)
			return potm_error("%s: key %#llx at level %llu below its subtree's bound %#llx (B1)",
			                  what, (unsigned long long)k, (unsigned long long)level,
			                  (unsigned long long)lo);
		if (has_hi && k >= hi)
			return potm_error("%s: key %#llx at level %llu not below its subtree's bound %#llx (B1)",
			                  what, (unsigned long long)k, (unsigned long long)level,
			                  (unsigned long long)hi);
		if (level == 0 && n->ptr[i] == NULL)
			return potm_error("%s: key %#llx has no value", what, (unsigned long long)k);
	}
	if (level == 0)
		return 0;
	for (uint64_t i = 0; i < c; i++) {
		uint64_t clo = i == 0 ? lo : n->key[i];
		bool chas_hi = i + 1 < c || has_hi;
		uint64_t chi = i + 1 < c ? n->key[i + 1] : hi;
		if (btree_check_node(n->ptr[i], level - 1, clo, chi, chas_hi, false, what) != 0)
			return -1;
	}
	return 0;
}

int btree_check(const btree_t *bt, const char *what)
{
	const btree_node_t *root = bt->root;
	if (root == NULL)
		return potm_error("%s: no root", what);
	if (root->level >= BTREE_MAX_DEPTH)
		return potm_error("%s: root at level %llu (at most %d levels)", what,
		                  (unsigned long long)root->level, BTREE_MAX_DEPTH);
	return btree_check_node(root, root->level, 0, 0, false, true, what);
}
