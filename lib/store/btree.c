/*
 * lib/store/btree.c — the ordered index: a B+-tree on the TM API, used for
 * ordered tables (primary key -> record) and for secondary indexes
 * (secondary key -> record).
 *
 * The layout and invariants B1-B4 are in store_internal.h.  Every access
 * to a published node goes through tm_read_u64/tm_write_u64/TM_LOAD/
 * TM_STORE, except its level, which is frozen.  Under the opacity every
 * backend gives, a transaction sees the invariants hold on every node it
 * reaches, so the code below trusts the permutation words (slot indices
 * below BTREE_FANOUT, B4) and the bounds it reads.
 *
 * A node's entries sit in unsorted slots ranked by one permutation word
 * (store_internal.h): a search reads the word once and binary-searches
 * the keys by rank; an insert writes a free slot and the word, a delete
 * the word alone, wherever the entry lies in the node.
 *
 * Insert descends from the root recording the path (or, for a key in the
 * range of the leaf the thread's last insert into the tree reached in the
 * same attempt, goes straight there: the finger, below), puts the entry
 * in its leaf and, if the leaf is full, splits it (in halves, or most entries
 * kept left for an append) and inserts the new right node into the
 * parent, splitting upwards as far as needed; a root split grows the tree
 * by one level.  The new node and a new root are filled with plain stores
 * before the transactional store that publishes them (tm.h: unpublished
 * memory); the node that split gives its last ranks away by rewriting its
 * word.
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
#include <string.h>

#define BTREE_HALF ((BTREE_FANOUT + 1) / 2)   /* entries kept left in a split */
#define BTREE_APPEND_KEEP (BTREE_FANOUT - 3)  /* ... in the split of an append */

/* The path of a descent: node[d] at depth d (node[0] the root,
 * node[depth - 1] the leaf), its permutation word as read, and for inner
 * nodes the rank of the child taken. */
typedef struct btree_path {
	btree_node_t *node[BTREE_MAX_DEPTH];
	uint64_t perm[BTREE_MAX_DEPTH];
	unsigned idx[BTREE_MAX_DEPTH];
	unsigned depth;
	uint64_t lo, hi;   /* the leaf's keys lie in [lo, hi] (B1) */
	unsigned lower;    /* in the leaf: the first rank whose key is >= the
	                      descent's key, or the count */
	bool found;        /* ... and whether that key is the descent's */
	void *val;         /* ... its pointer if so */
	tm_guard_t guard;  /* the leaf's word's (B6), lock NULL if none */
} btree_path_t;

/* The finger: the leaf the calling thread's last insert into a tree went
 * to, and the range of keys that leaf holds, valid for the rest of the
 * attempt (tm_txd_t.attempt_id) as long as that tree's structure does not
 * change: the next insert into the same tree whose key lies in the range
 * goes straight to the leaf (TPC-C's New-Order appends its order lines
 * one after the other).  Skipping the descent is safe: the path was read
 * in this attempt, so its nodes stay allocated until the attempt ends
 * (reclamation) and a concurrent change to them fails the attempt's
 * validation as if it had read them again (opacity); only this attempt's
 * own splits and deletes could change it.  A delete drops the finger; a
 * split of the leaf by an insert moves it to the half that took the key,
 * with that half's range (the new separator bounds it; splits above
 * leave it) and word (the other half's entries are not its).
 * Since the finger's inserts are this attempt's only writes to the leaf,
 * the finger also keeps the leaf's word as the last of them wrote it, and
 * that insert's rank and key, and once read the key ranked after it:
 * the next insert reads none of them back (read-after-write, each a
 * write-set lookup), and one whose key lies between the two (ascending
 * keys: the order lines, whether or not another district's keys follow
 * in the leaf) goes right after the last one without a search. */
#ifdef POTM_PRIVATE_ACCESS
static inline uint64_t btree_attempt(void)
{
	return 1;   /* one everlasting "attempt": only the owner's changes drop it */
}

static inline btree_finger_t *btree_finger_of(btree_t *bt)
{
	return &bt->finger;
}
#else
static __thread btree_finger_t btree_finger;

static inline uint64_t btree_attempt(void)
{
	return tm_self_->attempt_id;   /* inside a transaction (store_require_tx) */
}

static inline btree_finger_t *btree_finger_of(btree_t *bt)
{
	(void)bt;
	return &btree_finger;
}
#endif

/* ---- permutation words -------------------------------------------------------
 *
 * Pure functions of the word (store_internal.h gives the layout): an
 * operation reads a node's word once, computes the new one from it and
 * writes it once.  As in Masstree, an insert takes the free slot of the
 * last rank and a delete gives its slot back there, so that both are a
 * shift of the ranks from r on, whatever the count: the slot shifted out
 * at the top on an insert is the one it takes.
 */

/* The count and the ranks below r (r < BTREE_FANOUT): the low 4r + 4 bits. */
static inline uint64_t btree_perm_low_mask(unsigned r)
{
	return (1ull << (4 * r + 4)) - 1;
}

/* The slot an insert into a node with word perm (count < BTREE_FANOUT)
 * fills: the free one of the last rank. */
static inline unsigned btree_perm_free_slot(uint64_t perm)
{
	return btree_perm_slot(perm, BTREE_FANOUT - 1);
}

/* The same slots with count c: the ranks from c on become free, in the
 * order they were. */
static inline uint64_t btree_perm_with_count(uint64_t perm, unsigned c)
{
	return (perm & ~15ull) | c;
}

/* perm (count < BTREE_FANOUT) with a new entry at rank r <= count in the
 * slot btree_perm_free_slot gives: the ranks from r move up one, the last
 * one (that slot) out of the word, and the slot comes in at r. */
static inline uint64_t btree_perm_insert(uint64_t perm, unsigned r)
{
	uint64_t low = btree_perm_low_mask(r);
	uint64_t slot = btree_perm_free_slot(perm);
	return ((perm & low) + 1) | (perm & ~low) << 4 | slot << (4 * r + 4);
}

/* perm (count >= 1) without the entry of rank r < count: the ranks after
 * it move down one and its slot, now free, takes the last rank. */
static inline uint64_t btree_perm_remove(uint64_t perm, unsigned r)
{
	uint64_t low = btree_perm_low_mask(r);
	uint64_t slot = btree_perm_slot(perm, r);
	return ((perm & low) - 1) | ((perm >> 4) & ~low) | slot << (4 * BTREE_FANOUT);
}

/* ---- nodes ---------------------------------------------------------------- */

/* The node accessors are one read each, always inline (when optimizing):
 * left to GCC's inliner, a backend whose inline read is a few
 * instructions longer (silo's) would call each of them out of line on
 * every step of a search. */
#ifdef __OPTIMIZE__
#define BTREE_ACCESSOR static inline __attribute__((always_inline))
#else
#define BTREE_ACCESSOR static inline
#endif

BTREE_ACCESSOR uint64_t btree_read_perm(btree_node_t *n)
{
	return tm_read_u64(&n->perm);
}

/* The key and the pointer of the entry of rank r in n, perm its word. */
BTREE_ACCESSOR uint64_t btree_key_at(btree_node_t *n, uint64_t perm, unsigned r)
{
	return tm_read_u64(&n->key[btree_perm_slot(perm, r)]);
}

BTREE_ACCESSOR void *btree_ptr_at(btree_node_t *n, uint64_t perm, unsigned r)
{
	return TM_LOAD(&n->ptr[btree_perm_slot(perm, r)]);
}

/* Plain reads of the entry of rank r of a node whose word is perm: in
 * the quiescent calls, and in a search under the word's guard (below). */
BTREE_ACCESSOR uint64_t btree_plain_key(const btree_node_t *n, uint64_t perm, unsigned r)
{
	return __atomic_load_n(&n->key[btree_perm_slot(perm, r)], __ATOMIC_RELAXED);
}

BTREE_ACCESSOR void *btree_plain_ptr(const btree_node_t *n, uint64_t perm, unsigned r)
{
	return __atomic_load_n(&n->ptr[btree_perm_slot(perm, r)], __ATOMIC_RELAXED);
}

/* The word of a node for a search (B6): with g->lock set, the search may
 * read the slots it ranks with plain loads and keep what it found if
 * tm_guard_holds_(g) afterwards. */
BTREE_ACCESSOR uint64_t btree_read_perm_guarded(btree_node_t *n, tm_guard_t *g)
{
#ifdef POTM_PRIVATE_ACCESS
	g->lock = &tm_guard_plain_;   /* the owner's plain accesses */
	g->word = 0;
	return n->perm;
#else
	return tm_read_guard_u64_(&n->perm, g);
#endif
}

/* The key and the pointer of rank r, plain or through the TM. */
BTREE_ACCESSOR uint64_t btree_key_read(btree_node_t *n, uint64_t perm, unsigned r, bool plain)
{
	return plain ? btree_plain_key(n, perm, r) : btree_key_at(n, perm, r);
}

BTREE_ACCESSOR void *btree_ptr_read(btree_node_t *n, uint64_t perm, unsigned r, bool plain)
{
	return plain ? btree_plain_ptr(n, perm, r) : btree_ptr_at(n, perm, r);
}

/* A new node, unpublished: the caller fills it with plain stores.  Inside
 * a transaction the block is freed again if the attempt aborts. */
static btree_node_t *btree_node_new(uint64_t level, const char *call)
{
	btree_node_t *n = tm_malloc(sizeof *n);
	if (store_unlikely(n == NULL))
		store_abort(call, "out of memory for a B+-tree node");
	n->perm = BTREE_PERM_EMPTY;
	n->level = level;
	memset(n->ptr, 0, sizeof n->ptr);   /* B5 */
	return n;
}

/* Inner node n (word perm, count c >= 1): the rank of the child whose
 * range holds key, the largest r >= 1 whose key is <= key, else 0.
 * [*lo_key, *hi_key], n's range, becomes the child's: its own key (rank
 * r >= 1) and the next rank's key - 1 (if any), keys the search read. */
BTREE_ACCESSOR unsigned btree_child_for(btree_node_t *n, uint64_t perm, uint64_t key,
                                        uint64_t *lo_key, uint64_t *hi_key, bool plain)
{
	unsigned lo = 1, hi = btree_perm_count(perm);   /* the first rank in [1, c)
	                                                   whose key is > key */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		uint64_t k = btree_key_read(n, perm, mid, plain);
		if (k <= key) {
			lo = mid + 1;
			*lo_key = k;       /* the last one set is rank lo - 1's */
		} else {
			hi = mid;
			*hi_key = k - 1;   /* k > key >= 0 */
		}
	}
	return lo - 1;
}

/* Leaf n (word perm, count c): the first rank whose key is >= key, or c;
 * *found says whether that key is key.  The keys are distinct, so if that
 * rank's key is key the search compared it already: no second read. */
BTREE_ACCESSOR unsigned btree_leaf_lower_(btree_node_t *n, uint64_t perm, uint64_t key,
                                          bool *found, bool plain)
{
	unsigned lo = 0, hi = btree_perm_count(perm);
	bool eq = false;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		uint64_t k = btree_key_read(n, perm, mid, plain);
		if (k < key) {
			lo = mid + 1;
		} else {
			hi = mid;
			eq = k == key;
		}
	}
	*found = eq;
	return lo;
}

static unsigned btree_leaf_lower(btree_node_t *n, uint64_t perm, uint64_t key, bool *found)
{
	return btree_leaf_lower_(n, perm, key, found, false);
}

/* Put (key, ptr) at rank r of n (word perm, count < BTREE_FANOUT): into
 * a free slot, then the word that ranks it, which is returned.  For an
 * inner node r >= 1: the new child comes right after the one that split. */
static uint64_t btree_node_put(btree_node_t *n, uint64_t perm, unsigned r, uint64_t key, void *ptr)
{
	unsigned s = btree_perm_free_slot(perm);
	uint64_t next = btree_perm_insert(perm, r);
#ifdef POTM_KEEPS_VERSIONS_
	/* B5: a slot whose committed pointer is still NULL has held no entry
	 * since the node was made, so no committed word has ever ranked it
	 * and no snapshot reads it: its words need no old version.  (A
	 * commit that ranks it meanwhile changes the word this attempt
	 * read, and the attempt fails; one that freed it would have found it
	 * ranked, hence not NULL.) */
	if (__atomic_load_n(&n->ptr[s], __ATOMIC_RELAXED) == NULL) {
		tm_write_fresh((tm_word_t *)&n->key[s], (tm_word_t)key);
		tm_write_fresh((tm_word_t *)(void *)&n->ptr[s], (tm_word_t)ptr);
		tm_write_u64(&n->perm, next);
		return next;
	}
#endif
	tm_write_u64(&n->key[s], key);
	TM_STORE(&n->ptr[s], ptr);
	tm_write_u64(&n->perm, next);
	return next;
}

/* Remove the entry of rank r of n (word perm): its slot, left free, keeps
 * a stale key and pointer nobody reads. */
static void btree_node_remove_at(btree_node_t *n, uint64_t perm, unsigned r)
{
	tm_write_u64(&n->perm, btree_perm_remove(perm, r));
}

/* n (word perm) is full; (key, ptr) goes at rank pos.  Of the
 * BTREE_FANOUT + 1 entries n keeps the first ones and a new node,
 * returned, takes the rest: half and half, but for an entry past n's last
 * one (an append: ascending keys, as TPC-C's orders come within a
 * district) n keeps BTREE_APPEND_KEEP, so that appends leave nodes mostly
 * full instead of half empty.  Not all BTREE_FANOUT: a node left full
 * would split again at its next insert, and appends into the gap after it
 * could then split the same path up to the root every few inserts; with a
 * few slots free every split of a node needs three inserts into it at
 * least, so the depth stays logarithmic.
 * The new node is filled in key order (slot r at rank r) with plain
 * stores; n gives up its last ranks by its word alone, and if the new
 * entry stays in n it takes one of the slots given up.  *sep is the new node's
 * lower bound: its first key for a leaf; for an inner node the bound that
 * came with its first child (its key of rank 0 keeps it, meaning nothing
 * there).  Either way every key left of it in the subtree is smaller
 * (B1).  A leaf's split can tell a finger (f, or NULL) the node the new
 * entry went to, its rank there and that node's word. */
static btree_node_t *btree_split_node(btree_node_t *n, uint64_t perm, unsigned pos,
                                      uint64_t key, void *ptr, uint64_t *sep,
                                      btree_finger_t *f, const char *call)
{
	unsigned keep = pos == BTREE_FANOUT ? BTREE_APPEND_KEEP : BTREE_HALF;
	btree_node_t *r = btree_node_new(n->level, call);
	unsigned m = 0;
	/* j: the rank among all BTREE_FANOUT + 1 entries, the new one at pos. */
	for (unsigned j = keep; j <= BTREE_FANOUT; j++, m++) {
		if (j == pos) {
			r->key[m] = key;
			r->ptr[m] = ptr;
		} else {
			unsigned o = j > pos ? j - 1 : j;   /* its rank in n */
			r->key[m] = btree_key_at(n, perm, o);
			r->ptr[m] = btree_ptr_at(n, perm, o);
		}
	}
	r->perm = btree_perm_with_count(BTREE_PERM_EMPTY, m);
	*sep = r->key[0];
	if (pos >= keep) {
		tm_write_u64(&n->perm, btree_perm_with_count(perm, keep));
		if (f != NULL) {
			f->leaf = r;
			f->rank = pos - keep;
			f->perm = r->perm;
		}
	} else {
		uint64_t next = btree_node_put(n, btree_perm_with_count(perm, keep - 1), pos, key, ptr);
		if (f != NULL) {
			f->leaf = n;
			f->rank = pos;
			f->perm = next;
		}
	}
	return r;
}

/* One node of a descent (n at depth d): for an inner node the rank of
 * the child whose range holds key, the path's range narrowed to it, and
 * the child; for a leaf the path's lower, found and val.  Read under the
 * node's guard (B6) when the backend gives one, and again through the TM
 * if the guard fails or it gives none. */
BTREE_ACCESSOR btree_node_t *btree_descend_node(btree_node_t *n, uint64_t key, btree_path_t *p,
                                                unsigned d, bool plain, uint64_t perm)
{
	p->perm[d] = perm;
	if (n->level == 0) {
		p->lower = btree_leaf_lower_(n, perm, key, &p->found, plain);
		p->val = p->found ? btree_ptr_read(n, perm, p->lower, plain) : NULL;
		return NULL;
	}
	unsigned i = btree_child_for(n, perm, key, &p->lo, &p->hi, plain);
	p->idx[d] = i;
	return btree_ptr_read(n, perm, i, plain);
}

/* Walk from the root to the leaf whose range holds key, recording the
 * path and, in the leaf, where key is or would go; returns the leaf. */
static btree_node_t *btree_descend(btree_t *bt, uint64_t key, btree_path_t *p)
{
	btree_node_t *n = TM_LOAD(&bt->root);
	unsigned d = 0;
	p->lo = 0;
	p->hi = UINT64_MAX;
	for (;;) {
		tm_guard_t g;
		uint64_t perm = btree_read_perm_guarded(n, &g);
		p->node[d] = n;
		uint64_t lo = p->lo, hi = p->hi;
		btree_node_t *next;
		if (g.lock != NULL) {
			next = btree_descend_node(n, key, p, d, true, perm);
			if (store_unlikely(!tm_guard_holds_(&g))) {
				p->lo = lo;
				p->hi = hi;
				g.lock = NULL;
				next = btree_descend_node(n, key, p, d, false, btree_read_perm(n));
			}
		} else {
			next = btree_descend_node(n, key, p, d, false, perm);
		}
		if (next == NULL) {
			p->depth = d + 1;
			p->guard = g;
			return n;
		}
		n = next;
		d++;
	}
}

/* ---- get, insert, delete ---------------------------------------------------- */

void *btree_get(btree_t *bt, uint64_t key)
{
	btree_path_t p;
	btree_descend(bt, key, &p);
	return p.val;
}

/* The node at depth d of the path split; child, with lower bound sep, goes
 * right after it in its parent (depth d - 1), or in a new root. */
static void btree_insert_child(btree_t *bt, btree_path_t *p, unsigned d, uint64_t sep,
                               btree_node_t *child)
{
	while (d > 0) {
		d--;
		btree_node_t *n = p->node[d];
		uint64_t perm = p->perm[d];
		unsigned pos = p->idx[d] + 1;
		if (btree_perm_count(perm) < BTREE_FANOUT) {
			btree_node_put(n, perm, pos, sep, child);
			return;
		}
		child = btree_split_node(n, perm, pos, sep, child, &sep, NULL, "store_insert");
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
	root->perm = btree_perm_with_count(BTREE_PERM_EMPTY, 2);
	TM_STORE(&bt->root, root);
}

/* The rank of key in the finger's leaf (word f->perm, count entries),
 * *found as btree_leaf_lower's.  A key above the finger's last one and
 * at most the key ranked after it goes right after it (or is that key):
 * no search, and the key after it is read once for a run of such
 * inserts. */
static unsigned btree_finger_rank(btree_finger_t *f, unsigned count, uint64_t key, bool *found)
{
	unsigned after = f->rank + 1;
	if (key > f->key) {
		if (after == count) {
			*found = false;
			return after;
		}
		if (!f->next_known) {
			f->next = btree_key_at(f->leaf, f->perm, after);
			f->next_known = true;
		}
		if (key <= f->next) {
			*found = key == f->next;
			return after;
		}
	}
	return btree_leaf_lower(f->leaf, f->perm, key, found);
}

bool btree_insert(btree_t *bt, uint64_t key, void *val)
{
	btree_finger_t *f = btree_finger_of(bt);
	uint64_t attempt = btree_attempt();
	bool found;
	if (store_unlikely(val == NULL))
		store_abort("store_insert", "a NULL value in a B+-tree (B5)");
	if (f->attempt == attempt && f->tree == bt && key >= f->lo && key <= f->hi) {
		btree_node_t *fl = f->leaf;
		uint64_t perm = f->perm;
		unsigned count = btree_perm_count(perm);
		if (count < BTREE_FANOUT) {
			unsigned i = btree_finger_rank(f, count, key, &found);
			if (found)
				return false;
			if (i != f->rank + 1)
				f->next_known = false;   /* else the key after it stays next */
			f->rank = i;
			f->key = key;
			f->perm = btree_node_put(fl, perm, i, key, val);
			return true;
		}
		/* Full: the descent below splits it. */
	}
	btree_path_t p;
	btree_node_t *leaf = btree_descend(bt, key, &p);
	uint64_t perm = p.perm[p.depth - 1];
	unsigned i = p.lower;
	if (p.found)
		return false;
	if (btree_perm_count(perm) < BTREE_FANOUT) {
		uint64_t next = btree_node_put(leaf, perm, i, key, val);
		*f = (btree_finger_t){ attempt, bt, leaf, p.lo, p.hi, next, i, key, 0, false };
		return true;
	}
	/* The leaf splits: the finger goes to the half that took the key,
	 * whose range the separator bounds (B1); the splits above it, if
	 * any, leave both halves' ranges as they are. */
	uint64_t sep;
	btree_node_t *right = btree_split_node(leaf, perm, i, key, val, &sep, f, "store_insert");
	btree_insert_child(bt, &p, p.depth - 1, sep, right);
	f->attempt = attempt;
	f->tree = bt;
	f->lo = f->leaf == right ? sep : p.lo;
	f->hi = f->leaf == right ? p.hi : sep - 1;
	f->key = key;
	f->next_known = false;
	return true;
}

/* The inner root (word perm) has one child left: the child becomes the
 * root, and so on down while that one has a single child too (B3). */
static void btree_collapse_root(btree_t *bt, btree_node_t *root, uint64_t perm)
{
	for (;;) {
		btree_node_t *child = btree_ptr_at(root, perm, 0);
		TM_STORE(&bt->root, child);
		tm_free(root);
		if (child->level == 0)
			return;
		perm = btree_read_perm(child);
		if (btree_perm_count(perm) != 1)
			return;
		root = child;
	}
}

/* The node at depth d >= 1 of the path is empty: free it and remove it
 * from its parent, and so on up while that leaves the parent empty (B3).
 * Removing the child of rank i widens the range of the child of rank
 * i - 1 (or, for i = 0, of the new child of rank 0, whose key now means
 * nothing) over the empty one's: the bounds stay true (B1). */
static void btree_remove_empty(btree_t *bt, btree_path_t *p, unsigned d)
{
	for (;;) {
		tm_free(p->node[d]);
		d--;
		btree_node_t *n = p->node[d];
		uint64_t perm = btree_perm_remove(p->perm[d], p->idx[d]);
		tm_write_u64(&n->perm, perm);
		unsigned left = btree_perm_count(perm);
		if (d == 0) {
			/* An inner root has at least two children (B3), so one is
			 * left at least. */
			if (left == 1)
				btree_collapse_root(bt, n, perm);
			return;
		}
		if (left > 0)
			return;
	}
}

void *btree_delete(btree_t *bt, uint64_t key)
{
	btree_finger_t *f = btree_finger_of(bt);
	if (f->tree == bt)
		f->attempt = 0;   /* its leaf may go */
	btree_path_t p;
	btree_node_t *leaf = btree_descend(bt, key, &p);
	uint64_t perm = p.perm[p.depth - 1];
	if (!p.found)
		return NULL;
	unsigned i = p.lower;
	void *val = p.val;
	btree_node_remove_at(leaf, perm, i);
	if (btree_perm_count(perm) == 1 && p.depth > 1)
		btree_remove_empty(bt, &p, p.depth - 1);
	return val;
}

/* ---- scans ---------------------------------------------------------------- */

/* Fill the path below depth d, from node n, along its leftmost (dir
 * STORE_ASC) or rightmost edge down to a leaf; returns the leaf. */
static btree_node_t *btree_descend_edge(btree_path_t *p, unsigned d, btree_node_t *n, int dir)
{
	for (;;) {
		tm_guard_t g;
		uint64_t perm = btree_read_perm_guarded(n, &g);
		p->node[d] = n;
		if (n->level == 0) {
			p->perm[d] = perm;
			p->guard = g;
			return n;
		}
		/* Non-root inner nodes have a child at least (B3). */
		unsigned i = dir == STORE_ASC ? 0 : btree_perm_count(perm) - 1;
		btree_node_t *child = NULL;
		if (g.lock != NULL) {
			child = btree_plain_ptr(n, perm, i);
			if (store_unlikely(!tm_guard_holds_(&g)))
				child = NULL;
		}
		if (child == NULL) {
			perm = btree_read_perm(n);
			i = dir == STORE_ASC ? 0 : btree_perm_count(perm) - 1;
			child = btree_ptr_at(n, perm, i);
		}
		p->perm[d] = perm;
		p->idx[d++] = i;
		n = child;
	}
}

/* The leaf after (STORE_ASC) or before (STORE_DESC) the path's leaf, the
 * path moved to it; NULL if there is none or if every key beyond lies
 * outside the scan's range: above hi ascending, below lo descending. */
static btree_node_t *btree_next_leaf(btree_path_t *p, int dir, uint64_t lo, uint64_t hi)
{
	for (unsigned d = p->depth - 1; d-- > 0;) {
		btree_node_t *n = p->node[d];
		uint64_t perm = p->perm[d];
		unsigned i = p->idx[d];
		if (dir == STORE_ASC) {
			if (i + 1 == btree_perm_count(perm))
				continue;
			/* The key of rank i + 1 bounds the next subtree from below. */
			if (btree_key_at(n, perm, i + 1) > hi)
				return NULL;
			i++;
		} else {
			if (i == 0)
				continue;
			/* Every key left of child i is below child i's key. */
			if (btree_key_at(n, perm, i) <= lo)
				return NULL;
			i--;
		}
		p->idx[d] = i;
		return btree_descend_edge(p, d + 1, btree_ptr_at(n, perm, i), dir);
	}
	return NULL;
}

/* The entries of a leaf (word perm) a scan visits from rank i on: ascending
 * while the keys stay <= hi, descending (ranks i - 1, i - 2, ...) while
 * they stay >= lo; *end says a key out of range stopped it. */
BTREE_ACCESSOR unsigned btree_leaf_entries(btree_node_t *leaf, uint64_t perm, unsigned i, int dir,
                                           uint64_t lo, uint64_t hi, bool plain,
                                           uint64_t keys[static BTREE_FANOUT],
                                           void *vals[static BTREE_FANOUT], bool *end)
{
	unsigned n = 0;
	*end = false;
	if (dir == STORE_ASC) {
		for (unsigned c = btree_perm_count(perm); i < c; i++) {
			uint64_t k = btree_key_read(leaf, perm, i, plain);
			if (k > hi) {
				*end = true;
				break;
			}
			keys[n] = k;
			vals[n++] = btree_ptr_read(leaf, perm, i, plain);
		}
	} else {
		for (; i > 0; i--) {
			uint64_t k = btree_key_read(leaf, perm, i - 1, plain);
			if (k < lo) {
				*end = true;
				break;
			}
			keys[n] = k;
			vals[n++] = btree_ptr_read(leaf, perm, i - 1, plain);
		}
	}
	return n;
}

/* A scan takes a leaf's entries in range at once, under the leaf's guard
 * when there is one (B6), and only then calls fn on them: fn may run any
 * transactional code, and sees only what a consistent state holds. */
size_t btree_scan(btree_t *bt, uint64_t lo, uint64_t hi, int dir,
                  btree_visit_fn fn, void *arg)
{
	if (lo > hi)
		return 0;
	btree_path_t p;
	size_t visited = 0;
	btree_node_t *leaf = btree_descend(bt, dir == STORE_ASC ? lo : hi, &p);
	uint64_t perm = p.perm[p.depth - 1];
	/* Ascending: from the first key >= lo; descending: from the last
	 * key <= hi (the descent's key: lo or hi). */
	unsigned i = p.lower + (dir == STORE_DESC && p.found);
	for (bool first = true;; first = false) {
		uint64_t keys[BTREE_FANOUT];
		void *vals[BTREE_FANOUT];
		bool end;
		unsigned n;
		if (p.guard.lock == NULL) {
			/* perm came through the TM */
			n = btree_leaf_entries(leaf, perm, i, dir, lo, hi, false, keys, vals, &end);
		} else {
			n = btree_leaf_entries(leaf, perm, i, dir, lo, hi, true, keys, vals, &end);
			if (store_unlikely(!tm_guard_holds_(&p.guard))) {
				/* The leaf moved since its word was read: again,
				 * through the TM (which validates that read). */
				perm = btree_read_perm(leaf);
				if (first) {
					bool found;
					i = btree_leaf_lower(leaf, perm, dir == STORE_ASC ? lo : hi, &found);
					i += dir == STORE_DESC && found;
				} else {
					i = dir == STORE_ASC ? 0 : btree_perm_count(perm);
				}
				n = btree_leaf_entries(leaf, perm, i, dir, lo, hi, false, keys, vals, &end);
			}
		}
		for (unsigned j = 0; j < n; j++) {
			visited++;
			if (fn(keys[j], vals[j], arg))
				return visited;
		}
		if (end)
			return visited;
		leaf = btree_next_leaf(&p, dir, lo, hi);
		if (leaf == NULL)
			return visited;
		perm = p.perm[p.depth - 1];
		i = dir == STORE_ASC ? 0 : btree_perm_count(perm);
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
	leaf->perm = BTREE_PERM_EMPTY;
	leaf->level = 0;
	memset(leaf->ptr, 0, sizeof leaf->ptr);   /* B5 */
	bt->root = leaf;
	bt->finger.attempt = 0;
	return 0;
}

static void btree_free_subtree(btree_node_t *n, void (*free_val)(void *val))
{
	uint64_t perm = n->perm;
	unsigned c = btree_perm_count(perm);
	if (n->level == 0) {
		if (free_val != NULL)
			for (unsigned i = 0; i < c; i++)
				free_val(btree_plain_ptr(n, perm, i));
	} else {
		for (unsigned i = 0; i < c; i++)
			btree_free_subtree(btree_plain_ptr(n, perm, i), free_val);
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
	uint64_t perm = n->perm;
	unsigned c = btree_perm_count(perm);
	if (n->level == 0)
		return c;
	size_t sum = 0;
	for (unsigned i = 0; i < c; i++)
		sum += btree_count_subtree(btree_plain_ptr(n, perm, i));
	return sum;
}

size_t btree_count(const btree_t *bt)
{
	return btree_count_subtree(bt->root);
}

bool btree_is_empty_root(const btree_t *bt)
{
	return bt->root->level == 0 && btree_perm_count(bt->root->perm) == 0;
}

static int btree_walk_subtree(const btree_node_t *n,
                              int (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	uint64_t perm = n->perm;
	unsigned c = btree_perm_count(perm);
	for (unsigned i = 0; i < c; i++) {
		void *p = btree_plain_ptr(n, perm, i);
		int rc = n->level == 0 ? fn(btree_plain_key(n, perm, i), p, arg)
		                       : btree_walk_subtree(p, fn, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int btree_walk(const btree_t *bt, int (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	return btree_walk_subtree(bt->root, fn, arg);
}

/* B4 for n's word: every slot once. */
static int btree_check_perm(const btree_node_t *n, uint64_t level, const char *what)
{
	unsigned seen = 0;
	for (unsigned r = 0; r < BTREE_FANOUT; r++) {
		unsigned s = btree_perm_slot(n->perm, r);
		if (s >= BTREE_FANOUT || (seen & 1u << s) != 0)
			return potm_error("%s: a node at level %llu has permutation %#llx: "
			                  "slot %u at rank %u %s (B4)", what, (unsigned long long)level,
			                  (unsigned long long)n->perm, s, r,
			                  s >= BTREE_FANOUT ? "out of range" : "named twice");
		seen |= 1u << s;
	}
	return 0;
}

/* B1-B4 below n, which must be at level and hold keys in [lo, hi) (no
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
	uint64_t perm = n->perm;
	unsigned c = btree_perm_count(perm);
	if (c > BTREE_FANOUT)
		return potm_error("%s: a node at level %llu holds %u entries (at most %d)", what,
		                  (unsigned long long)level, c, BTREE_FANOUT);
	if (btree_check_perm(n, level, what) != 0)
		return -1;
	if (c == 0 && !(is_root && level == 0))
		return potm_error("%s: an empty %s node at level %llu (B3)", what,
		                  is_root ? "root" : "non-root", (unsigned long long)level);
	if (is_root && level > 0 && c < 2)
		return potm_error("%s: the inner root has a single child (B3)", what);
	/* For inner nodes the key of rank 0 means nothing: the checks start
	 * at rank 1. */
	uint64_t prev = 0;
	for (unsigned i = level == 0 ? 0 : 1; i < c; i++) {
		uint64_t k = btree_plain_key(n, perm, i);
		bool ordered = i == 0 || (level > 0 && i == 1) || k > prev;
		if (!ordered)
			return potm_error("%s: keys out of order at level %llu: %#llx after %#llx "
			                  "at rank %u (B1)", what, (unsigned long long)level,
			                  (unsigned long long)k, (unsigned long long)prev, i);
		prev = k;
		if (k < lo)
			return potm_error("%s: key %#llx at level %llu below its subtree's bound %#llx (B1)",
			                  what, (unsigned long long)k, (unsigned long long)level,
			                  (unsigned long long)lo);
		if (has_hi && k >= hi)
			return potm_error("%s: key %#llx at level %llu not below its subtree's bound %#llx (B1)",
			                  what, (unsigned long long)k, (unsigned long long)level,
			                  (unsigned long long)hi);
		if (level == 0 && btree_plain_ptr(n, perm, i) == NULL)
			return potm_error("%s: key %#llx has no value", what, (unsigned long long)k);
	}
	if (level == 0)
		return 0;
	uint64_t clo = lo;
	for (unsigned i = 0; i < c; i++) {
		bool chas_hi = i + 1 < c || has_hi;
		uint64_t chi = i + 1 < c ? btree_plain_key(n, perm, i + 1) : hi;
		if (btree_check_node(btree_plain_ptr(n, perm, i), level - 1, clo, chi, chas_hi, false,
		                     what) != 0)
			return -1;
		clo = chi;
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
