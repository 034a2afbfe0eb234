/*
 * bench/intset_rb.c — red-black tree with parent pointers, every access
 * transactional.
 *
 * The classic insert and delete fix-ups (Cormen et al.), written once for
 * both sides: a node's children are child[0] (left) and child[1] (right),
 * and each case names the side it works on.  Absent children are NULL, not
 * a shared sentinel: a sentinel's parent field would be written by every
 * deletion and make unrelated transactions conflict.  A deletion with no
 * child to move up runs the fix-up on the doomed node itself while it is
 * still linked, then unlinks it.
 *
 * What a transaction touches is kept small: a lookup reads one key and one
 * child pointer per level; colours are written only when they change, so
 * that e.g. the root's colour is not rewritten by every insertion.
 */
#include "intset.h"

#include <limits.h>

enum { RB_BLACK = 0, RB_RED = 1 };

typedef struct rb_node {
	long key;
	struct rb_node *child[2];   /* [0] smaller keys, [1] larger keys */
	struct rb_node *parent;
	long color;
} rb_node_t;

typedef struct rb_tree {
	rb_node_t *root;
} rb_tree_t;

/* ---- accessors: NULL is a black leaf --------------------------------------- */

static inline long rb_color(rb_node_t *n)
{
	return n ? TM_LOAD(&n->color) : RB_BLACK;
}

static inline void rb_set_color(rb_node_t *n, long color)
{
	if (n && TM_LOAD(&n->color) != color)
		TM_STORE(&n->color, color);
}

/* Which child of p is n (p must be its parent). */
static inline int rb_side(rb_node_t *p, rb_node_t *n)
{
	return TM_LOAD(&p->child[1]) == n;
}

/* Put new_child where old_child hangs under p (or at the root). */
static void rb_replace_child(rb_tree_t *t, rb_node_t *p, rb_node_t *old_child,
                             rb_node_t *new_child)
{
	if (p == NULL)
		TM_STORE(&t->root, new_child);
	else
		TM_STORE(&p->child[rb_side(p, old_child)], new_child);
}

/* Rotate x down towards side dir: its child on the other side takes its
 * place.  dir 0 is a left rotation, dir 1 a right rotation. */
static void rb_rotate(rb_tree_t *t, rb_node_t *x, int dir)
{
	rb_node_t *y = TM_LOAD(&x->child[!dir]);
	rb_node_t *inner = TM_LOAD(&y->child[dir]);
	rb_node_t *p = TM_LOAD(&x->parent);

	TM_STORE(&x->child[!dir], inner);
	if (inner)
		TM_STORE(&inner->parent, x);
	TM_STORE(&y->parent, p);
	rb_replace_child(t, p, x, y);
	TM_STORE(&y->child[dir], x);
	TM_STORE(&x->parent, y);
}

/* ---- lookup, insert -------------------------------------------------------- */

static POTM_BENCH_TX_FN bool rb_contains(void *set, long key)
{
	rb_tree_t *t = set;
	rb_node_t *n = TM_LOAD(&t->root);
	while (n) {
		long k = TM_LOAD(&n->key);
		if (k == key)
			return true;
		n = TM_LOAD(&n->child[key > k]);
	}
	return false;
}

/* x is a new red node: restore "no red node has a red parent" going up. */
static void rb_insert_fixup(rb_tree_t *t, rb_node_t *x)
{
	for (;;) {
		rb_node_t *p = TM_LOAD(&x->parent);
		if (p == NULL) {                 /* x is the root */
			rb_set_color(x, RB_BLACK);
			return;
		}
		if (TM_LOAD(&p->color) == RB_BLACK)
			return;
		/* p is red, so it is not the root: the grandparent exists. */
		rb_node_t *g = TM_LOAD(&p->parent);
		int pside = rb_side(g, p);
		rb_node_t *uncle = TM_LOAD(&g->child[!pside]);
		if (rb_color(uncle) == RB_RED) {
			/* Push the red up: the problem moves to g. */
			TM_STORE(&p->color, (long)RB_BLACK);
			TM_STORE(&uncle->color, (long)RB_BLACK);
			TM_STORE(&g->color, (long)RB_RED);
			x = g;
			continue;
		}
		if (TM_LOAD(&p->child[!pside]) == x) {
			/* x is an inner grandchild: turn it into an outer one. */
			rb_rotate(t, p, pside);
			x = p;
			p = TM_LOAD(&x->parent);
		}
		TM_STORE(&p->color, (long)RB_BLACK);
		TM_STORE(&g->color, (long)RB_RED);
		rb_rotate(t, g, !pside);
		return;
	}
}

static POTM_BENCH_TX_FN bool rb_insert(void *set, long key, uint64_t rnd)
{
	(void)rnd;
	rb_tree_t *t = set;
	rb_node_t *parent = NULL;
	int side = 0;
	rb_node_t *n = TM_LOAD(&t->root);
	while (n) {
		long k = TM_LOAD(&n->key);
		if (k == key)
			return false;
		parent = n;
		side = key > k;
		n = TM_LOAD(&n->child[side]);
	}
	rb_node_t *x = intset_alloc(sizeof *x);
	TM_STORE(&x->key, key);
	TM_STORE(&x->child[0], (rb_node_t *)NULL);
	TM_STORE(&x->child[1], (rb_node_t *)NULL);
	TM_STORE(&x->parent, parent);
	TM_STORE(&x->color, (long)RB_RED);
	if (parent == NULL)
		TM_STORE(&t->root, x);
	else
		TM_STORE(&parent->child[side], x);
	rb_insert_fixup(t, x);
	return true;
}

/* ---- delete ------------------------------------------------------------------- */

/* x carries an extra black (a black node was removed from its path):
 * push the extra black up, or absorb it with recolourings and at most
 * three rotations. */
static void rb_delete_fixup(rb_tree_t *t, rb_node_t *x)
{
	for (;;) {
		if (TM_LOAD(&x->color) == RB_RED) {
			/* A red node absorbs it (the root too, if it moved up red). */
			TM_STORE(&x->color, (long)RB_BLACK);
			return;
		}
		rb_node_t *p = TM_LOAD(&x->parent);
		if (p == NULL)
			return;                      /* the black root absorbs it */
		int side = rb_side(p, x);
		/* x is black and not the root: its sibling's subtree has a black
		 * height of at least one, so the sibling exists. */
		rb_node_t *s = TM_LOAD(&p->child[!side]);
		if (TM_LOAD(&s->color) == RB_RED) {
			TM_STORE(&s->color, (long)RB_BLACK);
			TM_STORE(&p->color, (long)RB_RED);
			rb_rotate(t, p, side);
			s = TM_LOAD(&p->child[!side]);
		}
		rb_node_t *near = TM_LOAD(&s->child[side]);
		rb_node_t *far = TM_LOAD(&s->child[!side]);
		if (rb_color(near) == RB_BLACK && rb_color(far) == RB_BLACK) {
			TM_STORE(&s->color, (long)RB_RED);
			x = p;
			continue;
		}
		if (rb_color(far) == RB_BLACK) {
			/* Make the red nephew the far one. */
			TM_STORE(&near->color, (long)RB_BLACK);
			TM_STORE(&s->color, (long)RB_RED);
			rb_rotate(t, s, !side);
			far = s;
			s = near;
		}
		rb_set_color(s, TM_LOAD(&p->color));
		rb_set_color(p, RB_BLACK);
		TM_STORE(&far->color, (long)RB_BLACK);
		rb_rotate(t, p, side);
		return;
	}
}

static void rb_delete_node(rb_tree_t *t, rb_node_t *z)
{
	rb_node_t *left = TM_LOAD(&z->child[0]);
	rb_node_t *right = TM_LOAD(&z->child[1]);
	if (left && right) {
		/* Two children: the in-order successor (leftmost of the right
		 * subtree, with no left child) gives z its key and goes instead. */
		rb_node_t *s = right, *next;
		while ((next = TM_LOAD(&s->child[0])) != NULL)
			s = next;
		TM_STORE(&z->key, TM_LOAD(&s->key));
		z = s;
		left = NULL;
		right = TM_LOAD(&s->child[1]);
	}
	rb_node_t *up = left ? left : right;  /* the only child, if any */
	rb_node_t *p = TM_LOAD(&z->parent);
	bool was_black = TM_LOAD(&z->color) == RB_BLACK;
	if (up) {
		TM_STORE(&up->parent, p);
		rb_replace_child(t, p, z, up);
		if (was_black)
			rb_delete_fixup(t, up);
	} else if (p == NULL) {
		TM_STORE(&t->root, (rb_node_t *)NULL);
	} else {
		/* A leaf: fix up around it while it still stands in its place,
		 * then cut it off from wherever the rotations left it. */
		if (was_black)
			rb_delete_fixup(t, z);
		rb_replace_child(t, TM_LOAD(&z->parent), z, NULL);
	}
	tm_free(z);
}

static POTM_BENCH_TX_FN bool rb_remove(void *set, long key)
{
	rb_tree_t *t = set;
	rb_node_t *n = TM_LOAD(&t->root);
	while (n) {
		long k = TM_LOAD(&n->key);
		if (k == key) {
			rb_delete_node(t, n);
			return true;
		}
		n = TM_LOAD(&n->child[key > k]);
	}
	return false;
}

/* ---- life cycle, verification ---------------------------------------------- */

static POTM_BENCH_TX_FN void *rb_create(const intset_config_t *cfg)
{
	(void)cfg;
	rb_tree_t *t = intset_alloc(sizeof *t);
	TM_STORE(&t->root, (rb_node_t *)NULL);
	return t;
}

/* The black height of the subtree at n (counting the NULL leaves), or -1
 * after recording what is wrong.  Keys must lie strictly between lo and
 * hi, which also catches a cycle (a node would have to be its own bound). */
static long rb_check(rb_node_t *n, rb_node_t *parent, long lo, long hi,
                     unsigned depth, uint64_t *count, bench_verdict_t *v)
{
	if (n == NULL)
		return 1;
	long key = TM_LOAD(&n->key);
	if (depth > 200)
		return bench_fail(v, "rb: deeper than 200 levels at key %ld", key), -1;
	if (TM_LOAD(&n->parent) != parent)
		return bench_fail(v, "rb: node %ld has a wrong parent pointer", key), -1;
	if (key <= lo || key >= hi)
		return bench_fail(v, "rb: key %ld out of order (must lie between %ld "
		                  "and %ld)", key, lo, hi), -1;
	long color = TM_LOAD(&n->color);
	if (color != RB_RED && color != RB_BLACK)
		return bench_fail(v, "rb: node %ld has colour %ld", key, color), -1;
	rb_node_t *l = TM_LOAD(&n->child[0]);
	rb_node_t *r = TM_LOAD(&n->child[1]);
	if (color == RB_RED && (rb_color(l) == RB_RED || rb_color(r) == RB_RED))
		return bench_fail(v, "rb: red node %ld has a red child", key), -1;
	(*count)++;
	long hl = rb_check(l, n, lo, key, depth + 1, count, v);
	if (hl < 0)
		return -1;
	long hr = rb_check(r, n, key, hi, depth + 1, count, v);
	if (hr < 0)
		return -1;
	if (hl != hr)
		return bench_fail(v, "rb: black heights differ under node %ld "
		                  "(%ld left, %ld right)", key, hl, hr), -1;
	return hl + (color == RB_BLACK);
}

static POTM_BENCH_TX_FN bool rb_verify(void *set, uint64_t *size, bench_verdict_t *v)
{
	rb_tree_t *t = set;
	rb_node_t *root = TM_LOAD(&t->root);
	*size = 0;
	if (rb_color(root) != RB_BLACK)
		return bench_fail(v, "rb: the root is red");
	return rb_check(root, NULL, LONG_MIN, LONG_MAX, 0, size, v) >= 0;
}

static void rb_free_subtree(rb_node_t *n)
{
	while (n) {
		rb_free_subtree(TM_LOAD(&n->child[0]));
		rb_node_t *right = TM_LOAD(&n->child[1]);
		tm_free(n);
		n = right;
	}
}

static POTM_BENCH_TX_FN void rb_destroy(void *set)
{
	rb_tree_t *t = set;
	rb_free_subtree(TM_LOAD(&t->root));
	TM_STORE(&t->root, (rb_node_t *)NULL);
	tm_free(t);
}

const intset_ops_t intset_rb_ops = {
	.name = "rb",
	.create = rb_create,
	.contains = rb_contains,
	.insert = rb_insert,
	.remove = rb_remove,
	.verify = rb_verify,
	.destroy = rb_destroy,
};
