/*
 * rbtree.c — red-black tree map (see rbtree.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "rbtree.h"

#define RB_FN(name)           rbtree_##name
#define RB_ARGDECL            /* none */
#define RB_ARG                /* none */
#define RB_LOAD_P(f)          (f)
#define RB_STORE_P(f, v)      ((f) = (v))
#define RB_LOAD(f)            (f)
#define RB_STORE(f, v)        ((f) = (v))
#define RB_MALLOC(n)          malloc(n)
#define RB_FREE(p)            free(p)
#include "rbtree_impl.h"
#undef RB_FN
#undef RB_ARGDECL
#undef RB_ARG
#undef RB_LOAD_P
#undef RB_STORE_P
#undef RB_LOAD
#undef RB_STORE
#undef RB_MALLOC
#undef RB_FREE

#define RB_FN(name)           TMrbtree_##name
#define RB_ARGDECL            TM_ARGDECL
#define RB_ARG                TM_ARG
#define RB_LOAD_P(f)          TM_SHARED_READ_P(f)
#define RB_STORE_P(f, v)      TM_SHARED_WRITE_P((f), (v))
#define RB_LOAD(f)            ((long)TM_SHARED_READ(f))
#define RB_STORE(f, v)        TM_SHARED_WRITE((f), (v))
#define RB_MALLOC(n)          TM_MALLOC(n)
#define RB_FREE(p)            TM_FREE(p)
#include "rbtree_impl.h"

rbtree_t *rbtree_alloc(rbtree_compare_t compare)
{
	rbtree_t *t = malloc(sizeof *t);
	if (t != NULL) {
		t->root = NULL;
		t->compare = compare;
	}
	return t;
}

rbtree_t *TMrbtree_alloc(TM_ARGDECL rbtree_compare_t compare)
{
	rbtree_t *t = TM_MALLOC(sizeof *t);
	if (t != NULL) {   /* private until published */
		t->root = NULL;
		t->compare = compare;
	}
	return t;
}

void rbtree_clear(rbtree_t *t)
{
	rbtree_freeNodes(t->root);
	t->root = NULL;
}

/* ---- verification ------------------------------------------------------------ */

typedef struct verify_state {
	rbtree_t *t;
	const char *name;
	long count;
	int failed;
} verify_state_t;

static void verify_fail(verify_state_t *s, const char *what, const void *key)
{
	if (!s->failed)
		fprintf(stderr, "rbtree %s: %s (key %ld)\n", s->name, what, (long)key);
	s->failed = 1;
}

/* Black height of the subtree at n, whose keys must lie strictly between
 * lo and hi (when given). */
static long verify_node(verify_state_t *s, rbtree_node_t *n, rbtree_node_t *parent,
                        const void *lo, int hasLo, const void *hi, int hasHi)
{
	if (n == NULL)
		return 1;
	s->count++;
	if (n->p != parent)
		verify_fail(s, "wrong parent link", n->k);
	if (hasLo && rbtree_compareKeys(s->t, n->k, lo) <= 0)
		verify_fail(s, "key out of order", n->k);
	if (hasHi && rbtree_compareKeys(s->t, n->k, hi) >= 0)
		verify_fail(s, "key out of order", n->k);
	if (n->c != RBTREE_RED && n->c != RBTREE_BLACK)
		verify_fail(s, "bad colour", n->k);
	if (n->c == RBTREE_RED &&
	    ((n->l && n->l->c == RBTREE_RED) || (n->r && n->r->c == RBTREE_RED)))
		verify_fail(s, "red node with a red child", n->k);
	long lh = verify_node(s, n->l, n, lo, hasLo, n->k, 1);
	long rh = verify_node(s, n->r, n, n->k, 1, hi, hasHi);
	if (lh != rh)
		verify_fail(s, "unequal black heights", n->k);
	return lh + (n->c == RBTREE_BLACK);
}

long rbtree_verify(rbtree_t *t, const char *name)
{
	verify_state_t s = { t, name ? name : "?", 0, 0 };
	if (t->root != NULL && t->root->c != RBTREE_BLACK)
		verify_fail(&s, "red root", t->root->k);
	verify_node(&s, t->root, NULL, NULL, 0, NULL, 0);
	return s.failed ? -1 : s.count;
}

static bool_t forEach_node(rbtree_node_t *n,
                           bool_t (*visit)(void *, void *, void *), void *ctx)
{
	while (n != NULL) {
		if (!forEach_node(n->l, visit, ctx))
			return FALSE;
		if (!visit(n->k, n->v, ctx))
			return FALSE;
		n = n->r;
	}
	return TRUE;
}

bool_t rbtree_forEach(rbtree_t *t, bool_t (*visit)(void *, void *, void *), void *ctx)
{
	return forEach_node(t->root, visit, ctx);
}
