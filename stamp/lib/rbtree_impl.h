/*
 * rbtree_impl.h — red-black tree algorithms (Cormen et al.'s insertion and
 * deletion fix-ups, with NULL leaves counted as black), compiled plainly
 * and transactionally by rbtree.c.  The includer defines RB_FN(name),
 * RB_ARGDECL, RB_ARG, RB_LOAD_P/RB_STORE_P (links, keys, values),
 * RB_LOAD/RB_STORE (colours), RB_MALLOC(n), RB_FREE(p).
 */

/* NULL-tolerant accessors: a missing node is black and has no relatives. */
static inline rbtree_node_t *RB_FN(parentOf)(RB_ARGDECL rbtree_node_t *n)
{
	return n ? (rbtree_node_t *)RB_LOAD_P(n->p) : NULL;
}
static inline rbtree_node_t *RB_FN(leftOf)(RB_ARGDECL rbtree_node_t *n)
{
	return n ? (rbtree_node_t *)RB_LOAD_P(n->l) : NULL;
}
static inline rbtree_node_t *RB_FN(rightOf)(RB_ARGDECL rbtree_node_t *n)
{
	return n ? (rbtree_node_t *)RB_LOAD_P(n->r) : NULL;
}
static inline long RB_FN(colorOf)(RB_ARGDECL rbtree_node_t *n)
{
	return n ? (long)RB_LOAD(n->c) : RBTREE_BLACK;
}
static inline void RB_FN(setColor)(RB_ARGDECL rbtree_node_t *n, long c)
{
	if (n != NULL)
		RB_STORE(n->c, c);
}

#define PARENT(n)       RB_FN(parentOf)(RB_ARG (n))
#define LEFT(n)         RB_FN(leftOf)(RB_ARG (n))
#define RIGHT(n)        RB_FN(rightOf)(RB_ARG (n))
#define COLOR(n)        RB_FN(colorOf)(RB_ARG (n))
#define SET_COLOR(n, c) RB_FN(setColor)(RB_ARG (n), (c))

/* Replace child `old` of `parent` (or the root) by `node`. */
static void RB_FN(replaceChild)(RB_ARGDECL rbtree_t *t, rbtree_node_t *parent,
                                rbtree_node_t *old, rbtree_node_t *node)
{
	if (parent == NULL)
		RB_STORE_P(t->root, node);
	else if (RB_LOAD_P(parent->l) == old)
		RB_STORE_P(parent->l, node);
	else
		RB_STORE_P(parent->r, node);
}

static void RB_FN(rotateLeft)(RB_ARGDECL rbtree_t *t, rbtree_node_t *x)
{
	rbtree_node_t *y = RB_LOAD_P(x->r);
	rbtree_node_t *yl = RB_LOAD_P(y->l);
	rbtree_node_t *xp = RB_LOAD_P(x->p);
	RB_STORE_P(x->r, yl);
	if (yl != NULL)
		RB_STORE_P(yl->p, x);
	RB_STORE_P(y->p, xp);
	RB_FN(replaceChild)(RB_ARG t, xp, x, y);
	RB_STORE_P(y->l, x);
	RB_STORE_P(x->p, y);
}

static void RB_FN(rotateRight)(RB_ARGDECL rbtree_t *t, rbtree_node_t *x)
{
	rbtree_node_t *y = RB_LOAD_P(x->l);
	rbtree_node_t *yr = RB_LOAD_P(y->r);
	rbtree_node_t *xp = RB_LOAD_P(x->p);
	RB_STORE_P(x->l, yr);
	if (yr != NULL)
		RB_STORE_P(yr->p, x);
	RB_STORE_P(y->p, xp);
	RB_FN(replaceChild)(RB_ARG t, xp, x, y);
	RB_STORE_P(y->r, x);
	RB_STORE_P(x->p, y);
}

static long RB_FN(compareKeys)(rbtree_t *t, const void *a, const void *b)
{
	if (t->compare != NULL)
		return t->compare(a, b);
	long x = (long)a, y = (long)b;
	return (x > y) - (x < y);
}

static rbtree_node_t *RB_FN(lookup)(RB_ARGDECL rbtree_t *t, void *key)
{
	rbtree_node_t *n = RB_LOAD_P(t->root);
	while (n != NULL) {
		long cmp = RB_FN(compareKeys)(t, key, RB_LOAD_P(n->k));
		if (cmp == 0)
			return n;
		n = cmp < 0 ? RB_LOAD_P(n->l) : RB_LOAD_P(n->r);
	}
	return NULL;
}

/* Restore the red-black properties after x (red) was linked in. */
static void RB_FN(fixAfterInsertion)(RB_ARGDECL rbtree_t *t, rbtree_node_t *x)
{
	while (x != NULL && x != RB_LOAD_P(t->root) && COLOR(PARENT(x)) == RBTREE_RED) {
		rbtree_node_t *xp = PARENT(x);
		rbtree_node_t *xpp = PARENT(xp);
		if (xp == LEFT(xpp)) {
			rbtree_node_t *uncle = RIGHT(xpp);
			if (COLOR(uncle) == RBTREE_RED) {
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(uncle, RBTREE_BLACK);
				SET_COLOR(xpp, RBTREE_RED);
				x = xpp;
			} else {
				if (x == RIGHT(xp)) {
					x = xp;
					RB_FN(rotateLeft)(RB_ARG t, x);
					xp = PARENT(x);
					xpp = PARENT(xp);
				}
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(xpp, RBTREE_RED);
				if (xpp != NULL)
					RB_FN(rotateRight)(RB_ARG t, xpp);
			}
		} else {
			rbtree_node_t *uncle = LEFT(xpp);
			if (COLOR(uncle) == RBTREE_RED) {
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(uncle, RBTREE_BLACK);
				SET_COLOR(xpp, RBTREE_RED);
				x = xpp;
			} else {
				if (x == LEFT(xp)) {
					x = xp;
					RB_FN(rotateRight)(RB_ARG t, x);
					xp = PARENT(x);
					xpp = PARENT(xp);
				}
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(xpp, RBTREE_RED);
				if (xpp != NULL)
					RB_FN(rotateLeft)(RB_ARG t, xpp);
			}
		}
	}
	SET_COLOR((rbtree_node_t *)RB_LOAD_P(t->root), RBTREE_BLACK);
}

/* Restore the black heights after a black node above x was removed. */
static void RB_FN(fixAfterDeletion)(RB_ARGDECL rbtree_t *t, rbtree_node_t *x)
{
	while (x != RB_LOAD_P(t->root) && COLOR(x) == RBTREE_BLACK) {
		rbtree_node_t *xp = PARENT(x);
		if (x == LEFT(xp)) {
			rbtree_node_t *sib = RIGHT(xp);
			if (COLOR(sib) == RBTREE_RED) {
				SET_COLOR(sib, RBTREE_BLACK);
				SET_COLOR(xp, RBTREE_RED);
				RB_FN(rotateLeft)(RB_ARG t, xp);
				xp = PARENT(x);
				sib = RIGHT(xp);
			}
			if (COLOR(LEFT(sib)) == RBTREE_BLACK && COLOR(RIGHT(sib)) == RBTREE_BLACK) {
				SET_COLOR(sib, RBTREE_RED);
				x = xp;
			} else {
				if (COLOR(RIGHT(sib)) == RBTREE_BLACK) {
					SET_COLOR(LEFT(sib), RBTREE_BLACK);
					SET_COLOR(sib, RBTREE_RED);
					RB_FN(rotateRight)(RB_ARG t, sib);
					xp = PARENT(x);
					sib = RIGHT(xp);
				}
				SET_COLOR(sib, COLOR(xp));
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(RIGHT(sib), RBTREE_BLACK);
				RB_FN(rotateLeft)(RB_ARG t, xp);
				x = RB_LOAD_P(t->root);
			}
		} else {
			rbtree_node_t *sib = LEFT(xp);
			if (COLOR(sib) == RBTREE_RED) {
				SET_COLOR(sib, RBTREE_BLACK);
				SET_COLOR(xp, RBTREE_RED);
				RB_FN(rotateRight)(RB_ARG t, xp);
				xp = PARENT(x);
				sib = LEFT(xp);
			}
			if (COLOR(RIGHT(sib)) == RBTREE_BLACK && COLOR(LEFT(sib)) == RBTREE_BLACK) {
				SET_COLOR(sib, RBTREE_RED);
				x = xp;
			} else {
				if (COLOR(LEFT(sib)) == RBTREE_BLACK) {
					SET_COLOR(RIGHT(sib), RBTREE_BLACK);
					SET_COLOR(sib, RBTREE_RED);
					RB_FN(rotateLeft)(RB_ARG t, sib);
					xp = PARENT(x);
					sib = LEFT(xp);
				}
				SET_COLOR(sib, COLOR(xp));
				SET_COLOR(xp, RBTREE_BLACK);
				SET_COLOR(LEFT(sib), RBTREE_BLACK);
				RB_FN(rotateRight)(RB_ARG t, xp);
				x = RB_LOAD_P(t->root);
			}
		}
	}
	SET_COLOR(x, RBTREE_BLACK);
}

bool_t RB_FN(insert)(RB_ARGDECL rbtree_t *t, void *key, void *val)
{
	rbtree_node_t *parent = NULL;
	rbtree_node_t *n = RB_LOAD_P(t->root);
	long cmp = 0;
	while (n != NULL) {
		cmp = RB_FN(compareKeys)(t, key, RB_LOAD_P(n->k));
		if (cmp == 0)
			return FALSE;
		parent = n;
		n = cmp < 0 ? RB_LOAD_P(n->l) : RB_LOAD_P(n->r);
	}
	rbtree_node_t *x = RB_MALLOC(sizeof *x);
	if (x == NULL)
		return FALSE;
	/* Private until linked below. */
	x->k = key;
	x->v = val;
	x->p = parent;
	x->l = NULL;
	x->r = NULL;
	x->c = RBTREE_RED;
	if (parent == NULL)
		RB_STORE_P(t->root, x);
	else if (cmp < 0)
		RB_STORE_P(parent->l, x);
	else
		RB_STORE_P(parent->r, x);
	RB_FN(fixAfterInsertion)(RB_ARG t, x);
	return TRUE;
}

static rbtree_node_t *RB_FN(successor)(RB_ARGDECL rbtree_node_t *n)
{
	rbtree_node_t *s = RB_LOAD_P(n->r);
	if (s != NULL) {
		rbtree_node_t *l;
		while ((l = RB_LOAD_P(s->l)) != NULL)
			s = l;
		return s;
	}
	rbtree_node_t *child = n;
	s = RB_LOAD_P(n->p);
	while (s != NULL && child == RB_LOAD_P(s->r)) {
		child = s;
		s = RB_LOAD_P(s->p);
	}
	return s;
}

bool_t RB_FN(delete)(RB_ARGDECL rbtree_t *t, void *key)
{
	rbtree_node_t *n = RB_FN(lookup)(RB_ARG t, key);
	if (n == NULL)
		return FALSE;
	if (RB_LOAD_P(n->l) != NULL && RB_LOAD_P(n->r) != NULL) {
		/* Two children: take over the successor's entry and unlink the
		 * successor instead, which has at most one child. */
		rbtree_node_t *s = RB_FN(successor)(RB_ARG n);
		RB_STORE_P(n->k, RB_LOAD_P(s->k));
		RB_STORE_P(n->v, RB_LOAD_P(s->v));
		n = s;
	}
	rbtree_node_t *replacement = RB_LOAD_P(n->l);
	if (replacement == NULL)
		replacement = RB_LOAD_P(n->r);
	rbtree_node_t *np = RB_LOAD_P(n->p);
	if (replacement != NULL) {
		RB_STORE_P(replacement->p, np);
		RB_FN(replaceChild)(RB_ARG t, np, n, replacement);
		RB_STORE_P(n->l, (rbtree_node_t *)NULL);
		RB_STORE_P(n->r, (rbtree_node_t *)NULL);
		RB_STORE_P(n->p, (rbtree_node_t *)NULL);
		if (RB_LOAD(n->c) == RBTREE_BLACK)
			RB_FN(fixAfterDeletion)(RB_ARG t, replacement);
	} else if (np == NULL) {
		RB_STORE_P(t->root, (rbtree_node_t *)NULL);
	} else {
		/* A leaf: let it stand in for its missing child during the
		 * fix-up, then cut it off. */
		if (RB_LOAD(n->c) == RBTREE_BLACK)
			RB_FN(fixAfterDeletion)(RB_ARG t, n);
		np = RB_LOAD_P(n->p);
		if (np != NULL) {
			if (RB_LOAD_P(np->l) == n)
				RB_STORE_P(np->l, (rbtree_node_t *)NULL);
			else if (RB_LOAD_P(np->r) == n)
				RB_STORE_P(np->r, (rbtree_node_t *)NULL);
			RB_STORE_P(n->p, (rbtree_node_t *)NULL);
		}
	}
	RB_FREE(n);
	return TRUE;
}

bool_t RB_FN(update)(RB_ARGDECL rbtree_t *t, void *key, void *val)
{
	rbtree_node_t *n = RB_FN(lookup)(RB_ARG t, key);
	if (n != NULL) {
		RB_STORE_P(n->v, val);
		return TRUE;
	}
	RB_FN(insert)(RB_ARG t, key, val);
	return FALSE;
}

void *RB_FN(get)(RB_ARGDECL rbtree_t *t, void *key)
{
	rbtree_node_t *n = RB_FN(lookup)(RB_ARG t, key);
	return n ? RB_LOAD_P(n->v) : NULL;
}

bool_t RB_FN(contains)(RB_ARGDECL rbtree_t *t, void *key)
{
	return RB_FN(lookup)(RB_ARG t, key) != NULL;
}

static void RB_FN(freeNodes)(RB_ARGDECL rbtree_node_t *n)
{
	while (n != NULL) {
		RB_FN(freeNodes)(RB_ARG (rbtree_node_t *)RB_LOAD_P(n->l));
		rbtree_node_t *r = RB_LOAD_P(n->r);
		RB_FREE(n);
		n = r;
	}
}

void RB_FN(free)(RB_ARGDECL rbtree_t *t)
{
	RB_FN(freeNodes)(RB_ARG (rbtree_node_t *)RB_LOAD_P(t->root));
	RB_FREE(t);
}

#undef PARENT
#undef LEFT
#undef RIGHT
#undef COLOR
#undef SET_COLOR
