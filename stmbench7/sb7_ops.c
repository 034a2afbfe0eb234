/*
 * stmbench7/sb7_ops.c — the operations: long traversals (T1-T6, Q6, Q7),
 * short traversals (ST1-ST10, T7, Q4, Q5), short operations (Q1-Q3, T8,
 * T9, OP6-OP15) and structural modifications (SM1-SM8).
 *
 * Random ids are drawn from 1..max (the id-pool capacity), so a lookup
 * may miss; where the specification says so, the operation then fails.
 */
#include "sb7_ops.h"

#include <limits.h>
#include <stdio.h>

/* ---- small helpers ------------------------------------------------------------ */

static long sb7_random_id(sb7_thread_t *th, long max)
{
	return 1 + sb7_rand_below(&th->rng, max);
}

/* An object picked by a random id in its index's range, or NULL where
 * the id is free (deleted, or not yet used): the operations that start
 * from one fail then, as in the original. */
static sb7_atomic_part_t *sb7_random_atomic(sb7_thread_t *th)
{
	return sb7_map_get(&th->db->atomic_by_id, sb7_random_id(th, th->db->params.max_atomic_parts));
}

static sb7_composite_part_t *sb7_random_composite(sb7_thread_t *th)
{
	return sb7_map_get(&th->db->composite_by_id, sb7_random_id(th, th->db->params.max_comp_parts));
}

static sb7_base_assembly_t *sb7_random_base(sb7_thread_t *th)
{
	return sb7_map_get(&th->db->base_by_id, sb7_random_id(th, th->db->params.max_base_assm));
}

static sb7_complex_assembly_t *sb7_random_complex(sb7_thread_t *th)
{
	return sb7_map_get(&th->db->complex_by_id, sb7_random_id(th, th->db->params.max_complex_assm));
}

static void sb7_swap_xy(sb7_atomic_part_t *ap)
{
	int x = SB7_LOAD(&ap->x), y = SB7_LOAD(&ap->y);
	SB7_STORE(&ap->x, y);
	SB7_STORE(&ap->y, x);
}

static void sb7_assembly_update_build_date(sb7_assembly_t *a)
{
	SB7_STORE(&a->build_date, sb7_next_build_date(SB7_LOAD(&a->build_date)));
}

static void sb7_composite_update_build_date(sb7_composite_part_t *cp)
{
	SB7_STORE(&cp->build_date, sb7_next_build_date(SB7_LOAD(&cp->build_date)));
}

/* T5/ST7: "I am" <-> "This is" at the head of a document.  1 if toggled,
 * SB7_FAILED if the text starts with neither. */
static long sb7_toggle_document_prefix(sb7_document_t *doc)
{
	if (sb7_text_replace_prefix(&doc->text, "I am", "This is"))
		return 1;
	if (sb7_text_replace_prefix(&doc->text, "This is", "I am"))
		return 1;
	return SB7_FAILED;
}

/* ---- the atomic-part graph of one composite part ---------------------------------- */

enum sb7_part_action {
	SB7_PART_READ,          /* T1, T6-style visit */
	SB7_PART_SWAP_ROOT,     /* T2a */
	SB7_PART_SWAP_ALL,      /* T2b, ST10 */
	SB7_PART_SWAP_ALL_4,    /* T2c */
	SB7_PART_DATE_ROOT,     /* T3a */
	SB7_PART_DATE_ALL,      /* T3b */
	SB7_PART_DATE_ALL_4,    /* T3c */
};

static void sb7_apply_part_action(sb7_thread_t *th, sb7_atomic_part_t *ap,
                                  enum sb7_part_action action, bool is_root)
{
	switch (action) {
	case SB7_PART_READ:
		SB7_TOUCH(&ap->x);
		break;
	case SB7_PART_SWAP_ROOT:
		if (is_root)
			sb7_swap_xy(ap);
		else
			SB7_TOUCH(&ap->x);
		break;
	case SB7_PART_SWAP_ALL:
		sb7_swap_xy(ap);
		break;
	case SB7_PART_SWAP_ALL_4:
		for (int i = 0; i < 4; i++)
			sb7_swap_xy(ap);
		break;
	case SB7_PART_DATE_ROOT:
		if (is_root)
			sb7_atomic_update_build_date(th->db, ap);
		else
			SB7_TOUCH(&ap->x);
		break;
	case SB7_PART_DATE_ALL:
		sb7_atomic_update_build_date(th->db, ap);
		break;
	case SB7_PART_DATE_ALL_4:
		for (int i = 0; i < 4; i++)
			sb7_atomic_update_build_date(th->db, ap);
		break;
	}
}

static void sb7_stack_push(sb7_thread_t *th, long *depth, sb7_atomic_part_t *ap)
{
	if (*depth == th->stack_cap) {
		/* Thread-private scratch: not transactional. */
		long cap = 2 * th->stack_cap;
		sb7_atomic_part_t **bigger = realloc(th->stack, (size_t)cap * sizeof *bigger);
		if (bigger == NULL) {
			fprintf(stderr, "stmbench7: out of memory\n");
			abort();
		}
		th->stack = bigger;
		th->stack_cap = cap;
	}
	th->stack[(*depth)++] = ap;
}

/* Depth-first search from root along outgoing connections, each part
 * visited once; returns the number of parts visited. */
static long sb7_traverse_parts(sb7_thread_t *th, sb7_atomic_part_t *root,
                               enum sb7_part_action action)
{
	sb7_visited_reset(&th->atomic_seen);
	long depth = 0, visited = 0;
	sb7_stack_push(th, &depth, root);
	while (depth > 0) {
		sb7_atomic_part_t *ap = th->stack[--depth];
		if (sb7_visited_test_and_mark(&th->atomic_seen, SB7_FROZEN(&ap->id)))
			continue;
		sb7_apply_part_action(th, ap, action, visited == 0);
		visited++;
		long n = sb7_vec_count(&ap->to);
		for (long i = 0; i < n; i++) {
			sb7_connection_t *c = sb7_vec_get(&ap->to, i);
			sb7_stack_push(th, &depth, SB7_FROZEN(&c->to));
		}
	}
	return visited;
}

/* ---- the assembly tree ------------------------------------------------------------ */

/* Called for every reference from a base assembly to a composite part;
 * returns a count, or SB7_FAILED to stop the traversal. */
typedef long (*sb7_component_visit_fn)(sb7_thread_t *th, sb7_composite_part_t *cp, int arg);

static long sb7_traverse_assemblies(sb7_thread_t *th, sb7_assembly_t *a,
                                    sb7_component_visit_fn visit, int arg)
{
	long total = 0;
	if (SB7_FROZEN(&a->kind) == SB7_COMPLEX_ASSEMBLY) {
		sb7_complex_assembly_t *ca = (sb7_complex_assembly_t *)a;
		long n = sb7_vec_count(&ca->sub_assemblies);
		for (long i = 0; i < n; i++) {
			long r = sb7_traverse_assemblies(th, sb7_vec_get(&ca->sub_assemblies, i), visit, arg);
			if (r == SB7_FAILED)
				return SB7_FAILED;
			total += r;
		}
	} else {
		sb7_base_assembly_t *ba = (sb7_base_assembly_t *)a;
		long n = sb7_vec_count(&ba->components);
		th->links_walked += n;
		for (long i = 0; i < n; i++) {
			long r = visit(th, sb7_vec_get(&ba->components, i), arg);
			if (r == SB7_FAILED)
				return SB7_FAILED;
			total += r;
		}
	}
	return total;
}

static sb7_assembly_t *sb7_design_root(sb7_thread_t *th)
{
	return (sb7_assembly_t *)SB7_LOAD(&th->db->module->design_root);
}

/* Visit every component of every base assembly, from the design root;
 * a walk that completes records how many links it met (links_seen). */
static long sb7_walk_design(sb7_thread_t *th, sb7_component_visit_fn visit, int arg)
{
	th->links_walked = 0;
	long r = sb7_traverse_assemblies(th, sb7_design_root(th), visit, arg);
	if (r != SB7_FAILED)
		th->links_seen = th->links_walked;
	return r;
}

static long sb7_visit_part_graph(sb7_thread_t *th, sb7_composite_part_t *cp, int action)
{
	return sb7_traverse_parts(th, SB7_FROZEN(&cp->root_part), (enum sb7_part_action)action);
}

static long sb7_visit_count_document_i(sb7_thread_t *th, sb7_composite_part_t *cp, int arg)
{
	sb7_document_t *doc = SB7_FROZEN(&cp->documentation);
	return sb7_text_count_char(&doc->text, 'I');
}

static long sb7_visit_toggle_document(sb7_thread_t *th, sb7_composite_part_t *cp, int arg)
{
	return sb7_toggle_document_prefix(SB7_FROZEN(&cp->documentation));
}

static long sb7_visit_root_part(sb7_thread_t *th, sb7_composite_part_t *cp, int arg)
{
	sb7_atomic_part_t *root = SB7_FROZEN(&cp->root_part);
	SB7_TOUCH(&root->x);
	return 1;
}

/* ---- long traversals ------------------------------------------------------------- */

static long sb7_long_traversal(sb7_thread_t *th, enum sb7_part_action action)
{
	return sb7_walk_design(th, sb7_visit_part_graph, action);
}

static long sb7_traversal_t1(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_READ); }
static long sb7_traversal_t2a(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_SWAP_ROOT); }
static long sb7_traversal_t2b(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_SWAP_ALL); }
static long sb7_traversal_t2c(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_SWAP_ALL_4); }
static long sb7_traversal_t3a(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_DATE_ROOT); }
static long sb7_traversal_t3b(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_DATE_ALL); }
static long sb7_traversal_t3c(sb7_thread_t *th) { return sb7_long_traversal(th, SB7_PART_DATE_ALL_4); }

static long sb7_traversal_t4(sb7_thread_t *th)
{
	return sb7_walk_design(th, sb7_visit_count_document_i, 0);
}

static long sb7_traversal_t5(sb7_thread_t *th)
{
	return sb7_walk_design(th, sb7_visit_toggle_document, 0);
}

static long sb7_traversal_t6(sb7_thread_t *th)
{
	return sb7_walk_design(th, sb7_visit_root_part, 0);
}

/* The Q5 test: does a component carry a later build date than the base
 * assembly? */
static bool sb7_base_uses_later_component(sb7_base_assembly_t *ba)
{
	int date = SB7_LOAD(&ba->a.build_date);
	long n = sb7_vec_count(&ba->components);
	for (long i = 0; i < n; i++) {
		sb7_composite_part_t *cp = sb7_vec_get(&ba->components, i);
		if (SB7_LOAD(&cp->build_date) > date)
			return true;
	}
	return false;
}

/* Q6: base assemblies that pass the Q5 test, and the complex assemblies
 * above them. */
static long sb7_query6_traverse(sb7_assembly_t *a)
{
	if (SB7_FROZEN(&a->kind) == SB7_BASE_ASSEMBLY)
		return sb7_base_uses_later_component((sb7_base_assembly_t *)a) ? 1 : 0;
	sb7_complex_assembly_t *ca = (sb7_complex_assembly_t *)a;
	long total = 0, n = sb7_vec_count(&ca->sub_assemblies);
	for (long i = 0; i < n; i++)
		total += sb7_query6_traverse(sb7_vec_get(&ca->sub_assemblies, i));
	if (total > 0) {
		SB7_TOUCH(&a->build_date);
		total++;
	}
	return total;
}

static long sb7_query_q6(sb7_thread_t *th)
{
	return sb7_query6_traverse(sb7_design_root(th));
}

static long sb7_query_q7(sb7_thread_t *th)
{
	long n = 0;
	SB7_MAP_FOREACH(node, &th->db->atomic_by_id) {
		sb7_atomic_part_t *ap = sb7_map_node_value(node);
		SB7_TOUCH(&ap->x);
		n++;
	}
	return n;
}

/* ---- short traversals -------------------------------------------------------------- */

/* From the design root, a random sub-assembly at each level and a random
 * component of the base assembly reached; NULL if that base assembly has
 * no components (the operation fails). */
static sb7_composite_part_t *sb7_random_walk_to_composite(sb7_thread_t *th)
{
	sb7_assembly_t *a = sb7_design_root(th);
	while (SB7_FROZEN(&a->kind) == SB7_COMPLEX_ASSEMBLY) {
		sb7_complex_assembly_t *ca = (sb7_complex_assembly_t *)a;
		long n = sb7_vec_count(&ca->sub_assemblies);
		if (n == 0)
			return NULL;
		a = sb7_vec_get(&ca->sub_assemblies, sb7_rand_below(&th->rng, n));
	}
	sb7_base_assembly_t *ba = (sb7_base_assembly_t *)a;
	long n = sb7_vec_count(&ba->components);
	if (n == 0)
		return NULL;
	return sb7_vec_get(&ba->components, sb7_rand_below(&th->rng, n));
}

static sb7_atomic_part_t *sb7_random_part_of(sb7_thread_t *th, sb7_composite_part_t *cp)
{
	long n = sb7_vec_count(&cp->parts);
	return sb7_vec_get(&cp->parts, sb7_rand_below(&th->rng, n));
}

/* ST1 / ST6 */
static long sb7_walk_to_atomic_part(sb7_thread_t *th, bool swap)
{
	sb7_composite_part_t *cp = sb7_random_walk_to_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	sb7_atomic_part_t *ap = sb7_random_part_of(th, cp);
	long sum = (long)SB7_LOAD(&ap->x) + SB7_LOAD(&ap->y);
	if (swap)
		sb7_swap_xy(ap);
	return sum;
}

static long sb7_short_traversal_st1(sb7_thread_t *th) { return sb7_walk_to_atomic_part(th, false); }
static long sb7_short_traversal_st6(sb7_thread_t *th) { return sb7_walk_to_atomic_part(th, true); }

static long sb7_short_traversal_st2(sb7_thread_t *th)
{
	sb7_composite_part_t *cp = sb7_random_walk_to_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	sb7_document_t *doc = SB7_FROZEN(&cp->documentation);
	return sb7_text_count_char(&doc->text, 'I');
}

static long sb7_short_traversal_st7(sb7_thread_t *th)
{
	sb7_composite_part_t *cp = sb7_random_walk_to_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	return sb7_toggle_document_prefix(SB7_FROZEN(&cp->documentation));
}

/* ST9 / ST10 */
static long sb7_walk_then_part_graph(sb7_thread_t *th, enum sb7_part_action action)
{
	sb7_composite_part_t *cp = sb7_random_walk_to_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	return sb7_traverse_parts(th, SB7_FROZEN(&cp->root_part), action);
}

static long sb7_short_traversal_st9(sb7_thread_t *th) { return sb7_walk_then_part_graph(th, SB7_PART_READ); }
static long sb7_short_traversal_st10(sb7_thread_t *th) { return sb7_walk_then_part_graph(th, SB7_PART_SWAP_ALL); }

/* T7 / ST8: a random atomic part, its composite part, and every assembly
 * above the base assemblies that use it, each once. */
static long sb7_walk_up_from_random_part(sb7_thread_t *th, bool update)
{
	sb7_atomic_part_t *ap = sb7_random_atomic(th);
	if (ap == NULL)
		return SB7_FAILED;
	sb7_composite_part_t *cp = SB7_LOAD(&ap->part_of);
	sb7_visited_reset(&th->base_seen);
	sb7_visited_reset(&th->complex_seen);
	long visited = 0, n = sb7_vec_count(&cp->used_in);
	for (long i = 0; i < n; i++) {
		sb7_base_assembly_t *ba = sb7_vec_get(&cp->used_in, i);
		if (sb7_visited_test_and_mark(&th->base_seen, SB7_LOAD(&ba->a.id)))
			continue;
		sb7_assembly_t *a = &ba->a;
		for (;;) {
			if (update)
				sb7_assembly_update_build_date(a);
			else
				SB7_TOUCH(&a->build_date);
			visited++;
			sb7_complex_assembly_t *up = SB7_LOAD(&a->super_assembly);
			if (up == NULL || sb7_visited_test_and_mark(&th->complex_seen, SB7_LOAD(&up->a.id)))
				break;
			a = &up->a;
		}
	}
	return visited;
}

static long sb7_short_traversal_t7(sb7_thread_t *th) { return sb7_walk_up_from_random_part(th, false); }
static long sb7_short_traversal_st8(sb7_thread_t *th) { return sb7_walk_up_from_random_part(th, true); }

static long sb7_query_q4(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	long found = 0;
	for (int i = 0; i < 100; i++) {
		char title[SB7_TITLE_SIZE];
		sb7_document_title(title, sizeof title, sb7_random_id(th, db->params.max_comp_parts));
		sb7_document_t *doc = sb7_strmap_get(&db->document_by_title, title);
		if (doc == NULL)
			continue;
		sb7_composite_part_t *cp = SB7_LOAD(&doc->part);
		long n = sb7_vec_count(&cp->used_in);
		for (long k = 0; k < n; k++) {
			sb7_base_assembly_t *ba = sb7_vec_get(&cp->used_in, k);
			SB7_TOUCH(&ba->a.build_date);
			found++;
		}
	}
	return found;
}

static long sb7_query_q5(sb7_thread_t *th)
{
	long found = 0;
	SB7_MAP_FOREACH(node, &th->db->base_by_id)
		found += sb7_base_uses_later_component(sb7_map_node_value(node));
	return found;
}

/* ---- short operations ------------------------------------------------------------- */

enum sb7_found_action { SB7_FOUND_READ, SB7_FOUND_SWAP, SB7_FOUND_DATE };

/* Q1 / OP9 / OP15: ten random atomic-part ids. */
static long sb7_random_atomic_lookups(sb7_thread_t *th, enum sb7_found_action action)
{
	sb7_db_t *db = th->db;
	long found = 0;
	for (int i = 0; i < 10; i++) {
		sb7_atomic_part_t *ap = sb7_random_atomic(th);
		if (ap == NULL)
			continue;
		if (action == SB7_FOUND_READ)
			SB7_TOUCH(&ap->x);
		else if (action == SB7_FOUND_SWAP)
			sb7_swap_xy(ap);
		else
			sb7_atomic_update_build_date(db, ap);
		found++;
	}
	return found;
}

static long sb7_query_q1(sb7_thread_t *th) { return sb7_random_atomic_lookups(th, SB7_FOUND_READ); }
static long sb7_operation_op9(sb7_thread_t *th) { return sb7_random_atomic_lookups(th, SB7_FOUND_SWAP); }
static long sb7_operation_op15(sb7_thread_t *th) { return sb7_random_atomic_lookups(th, SB7_FOUND_DATE); }

/* Q2 / Q3 / OP10: atomic parts in the newest percent of the initial
 * build-date range. */
static long sb7_build_date_range(sb7_thread_t *th, int percent, bool swap)
{
	const sb7_params_t *p = &th->db->params;
	int to = p->max_atomic_date;
	int from = to - (p->max_atomic_date - p->min_atomic_date) * percent / 100;
	long found = 0;
	for (sb7_map_node_t *node = sb7_map_first_from(&th->db->atomic_by_date, from);
	     node != NULL && sb7_map_node_key(node) <= to; node = sb7_map_next(node)) {
		sb7_vec_t *same_date = sb7_map_node_value(node);
		long n = sb7_vec_count(same_date);
		for (long i = 0; i < n; i++) {
			sb7_atomic_part_t *ap = sb7_vec_get(same_date, i);
			if (swap)
				sb7_swap_xy(ap);
			else
				SB7_TOUCH(&ap->x);
			found++;
		}
	}
	return found;
}

static long sb7_query_q2(sb7_thread_t *th) { return sb7_build_date_range(th, 1, false); }
static long sb7_query_q3(sb7_thread_t *th) { return sb7_build_date_range(th, 10, false); }
static long sb7_operation_op10(sb7_thread_t *th) { return sb7_build_date_range(th, 1, true); }

static sb7_text_t *sb7_manual_text(sb7_thread_t *th)
{
	sb7_manual_t *manual = SB7_LOAD(&th->db->module->manual);
	return &manual->text;
}

static long sb7_traversal_t8(sb7_thread_t *th)
{
	return sb7_text_count_char(sb7_manual_text(th), 'I');
}

static long sb7_traversal_t9(sb7_thread_t *th)
{
	sb7_text_t *t = sb7_manual_text(th);
	return sb7_text_first_char(t) == sb7_text_last_char(t);
}

static long sb7_operation_op11(sb7_thread_t *th)
{
	sb7_text_t *t = sb7_manual_text(th);
	int first = sb7_text_first_char(t);
	if (first == 'I')
		return sb7_text_replace_char(t, 'I', 'i');
	if (first == 'i')
		return sb7_text_replace_char(t, 'i', 'I');
	return SB7_FAILED;
}

/* The sub-assemblies of parent (a random assembly and its siblings): read
 * their build dates, or update them.  Returns how many there are. */
static long sb7_touch_sub_assemblies(sb7_complex_assembly_t *parent, bool update)
{
	long n = sb7_vec_count(&parent->sub_assemblies);
	for (long i = 0; i < n; i++) {
		sb7_assembly_t *sibling = sb7_vec_get(&parent->sub_assemblies, i);
		if (update)
			sb7_assembly_update_build_date(sibling);
		else
			SB7_TOUCH(&sibling->build_date);
	}
	return n;
}

/* OP6 / OP12: a random complex assembly and its siblings (or itself if it
 * is the root). */
static long sb7_complex_siblings(sb7_thread_t *th, bool update)
{
	sb7_complex_assembly_t *ca = sb7_random_complex(th);
	if (ca == NULL)
		return SB7_FAILED;
	sb7_complex_assembly_t *parent = SB7_LOAD(&ca->a.super_assembly);
	if (parent == NULL) {
		if (update)
			sb7_assembly_update_build_date(&ca->a);
		else
			SB7_TOUCH(&ca->a.build_date);
		return 1;
	}
	return sb7_touch_sub_assemblies(parent, update);
}

static long sb7_operation_op6(sb7_thread_t *th) { return sb7_complex_siblings(th, false); }
static long sb7_operation_op12(sb7_thread_t *th) { return sb7_complex_siblings(th, true); }

/* OP7 / OP13: a random base assembly and its siblings. */
static long sb7_base_siblings(sb7_thread_t *th, bool update)
{
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL)
		return SB7_FAILED;
	sb7_complex_assembly_t *parent = SB7_LOAD(&ba->a.super_assembly);
	return sb7_touch_sub_assemblies(parent, update);
}

static long sb7_operation_op7(sb7_thread_t *th) { return sb7_base_siblings(th, false); }
static long sb7_operation_op13(sb7_thread_t *th) { return sb7_base_siblings(th, true); }

/* OP8 / OP14: the components of a random base assembly. */
static long sb7_base_components(sb7_thread_t *th, bool update)
{
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL)
		return SB7_FAILED;
	long n = sb7_vec_count(&ba->components);
	for (long i = 0; i < n; i++) {
		sb7_composite_part_t *cp = sb7_vec_get(&ba->components, i);
		if (update)
			sb7_composite_update_build_date(cp);
		else
			SB7_TOUCH(&cp->build_date);
	}
	return n;
}

static long sb7_operation_op8(sb7_thread_t *th) { return sb7_base_components(th, false); }
static long sb7_operation_op14(sb7_thread_t *th) { return sb7_base_components(th, true); }

/* ---- structural modifications ---------------------------------------------------------
 * Each checks everything that can make it fail (missing object, empty id
 * pool, last child) before it changes anything. */

static long sb7_structural_sm1(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	if (sb7_idpool_available(&db->composite_ids) < 1 ||
	    sb7_idpool_available(&db->document_ids) < 1 ||
	    sb7_idpool_available(&db->atomic_ids) < db->params.num_atomic_per_comp)
		return SB7_FAILED;
	sb7_create_composite_part(db, th);
	return 1;
}

static long sb7_structural_sm2(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	sb7_composite_part_t *cp = sb7_random_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	sb7_delete_composite_part(db, cp);
	return 1;
}

static long sb7_structural_sm3(sb7_thread_t *th)
{
	sb7_composite_part_t *cp = sb7_random_composite(th);
	if (cp == NULL)
		return SB7_FAILED;
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL)
		return SB7_FAILED;
	sb7_link_component(ba, cp);
	return 1;
}

static long sb7_structural_sm4(sb7_thread_t *th)
{
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL)
		return SB7_FAILED;
	long n = sb7_vec_count(&ba->components);
	if (n == 0)
		return SB7_FAILED;
	long i = sb7_rand_below(&th->rng, n);
	sb7_composite_part_t *cp = sb7_vec_get(&ba->components, i);
	sb7_vec_remove_at(&ba->components, i);
	sb7_vec_remove(&cp->used_in, ba);
	return 1;
}

static long sb7_structural_sm5(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL || sb7_idpool_available(&db->base_ids) < 1)
		return SB7_FAILED;
	sb7_create_base_assembly(db, th, SB7_LOAD(&ba->a.super_assembly), false);
	return 1;
}

static long sb7_structural_sm6(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	sb7_base_assembly_t *ba = sb7_random_base(th);
	if (ba == NULL)
		return SB7_FAILED;
	sb7_complex_assembly_t *parent = SB7_LOAD(&ba->a.super_assembly);
	if (sb7_vec_count(&parent->sub_assemblies) == 1)
		return SB7_FAILED;
	sb7_vec_remove(&parent->sub_assemblies, ba);
	sb7_delete_base_assembly(db, ba);
	return 1;
}

static long sb7_structural_sm7(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	sb7_complex_assembly_t *ca = sb7_random_complex(th);
	if (ca == NULL)
		return SB7_FAILED;
	long level = SB7_LOAD(&ca->level);
	if (level == 2) {
		if (sb7_idpool_available(&db->base_ids) < 1)
			return SB7_FAILED;
		sb7_create_base_assembly(db, th, ca, false);
		return 1;
	}
	/* A whole subtree: the pools must hold all of its ids (the original
	 * finds out half-way and rolls back). */
	if (sb7_idpool_available(&db->complex_ids) < sb7_complex_ids_for_subtree(&db->params, level - 1) ||
	    sb7_idpool_available(&db->base_ids) < sb7_base_ids_for_subtree(&db->params, level - 1))
		return SB7_FAILED;
	sb7_create_complex_subtree(db, th, ca, level - 1, false);
	return 1;
}

static long sb7_structural_sm8(sb7_thread_t *th)
{
	sb7_db_t *db = th->db;
	sb7_complex_assembly_t *ca = sb7_random_complex(th);
	if (ca == NULL)
		return SB7_FAILED;
	sb7_complex_assembly_t *parent = SB7_LOAD(&ca->a.super_assembly);
	if (parent == NULL || sb7_vec_count(&parent->sub_assemblies) == 1)
		return SB7_FAILED;
	sb7_vec_remove(&parent->sub_assemblies, ca);
	sb7_delete_complex_subtree(db, ca);
	return 1;
}

/* ---- the table --------------------------------------------------------------------- */

#define R_ASSM SB7_LOCK_ALL_ASSEMBLIES
#define R_BASE SB7_LOCK_BASE_ASSEMBLIES
#define R_COMPLEX SB7_LOCK_COMPLEX_ASSEMBLIES
#define R_CP SB7_LOCK_COMPOSITE
#define R_AP SB7_LOCK_ATOMIC
#define R_DOC SB7_LOCK_DOCUMENT
#define R_MAN SB7_LOCK_MANUAL
#define ALL SB7_LOCK_EVERYTHING
#define WALK true    /* the weight scales with the links left */
#define FIXED false

/* The column before last is each operation's weight in the weighted order
 * (POTM_SEQUENCER=weighted): its mean time on seq at the small size, one
 * thread, in units of 2 us (about what a turn hand-off costs), at least 1.
 * A constant table keeps the order deterministic; it only has to be
 * roughly proportional to run time, but an operation weighted well above
 * its time waits idle for its slot, so the weights follow the current
 * code's times (OP11 rewrites one shared chunk of the manual and is
 * light).  WALK marks the walks of the whole design, whose time is
 * proportional to the component links left: their weight is scaled by
 * the links the thread's last walk met (sb7_operation_weight), itself a
 * deterministic result. */
const sb7_operation_t sb7_operations[SB7_OPERATION_COUNT] = {
	/* long traversals, read-only */
	{ "T1", SB7_CAT_TRAVERSAL_RO, sb7_traversal_t1, R_ASSM | R_CP | R_AP, 0, 468, WALK },
	{ "T4", SB7_CAT_TRAVERSAL_RO, sb7_traversal_t4, R_ASSM | R_CP | R_DOC, 0, 361, WALK },
	{ "T6", SB7_CAT_TRAVERSAL_RO, sb7_traversal_t6, R_ASSM | R_CP | R_AP, 0, 4, WALK },
	{ "Q6", SB7_CAT_TRAVERSAL_RO, sb7_query_q6, R_ASSM | R_CP, 0, 5, FIXED },
	{ "Q7", SB7_CAT_TRAVERSAL_RO, sb7_query_q7, R_AP, 0, 9, FIXED },
	/* long traversals, update */
	{ "T2a", SB7_CAT_TRAVERSAL, sb7_traversal_t2a, R_ASSM | R_CP, R_AP, 475, WALK },
	{ "T2b", SB7_CAT_TRAVERSAL, sb7_traversal_t2b, R_ASSM | R_CP, R_AP, 475, WALK },
	{ "T2c", SB7_CAT_TRAVERSAL, sb7_traversal_t2c, R_ASSM | R_CP, R_AP, 472, WALK },
	{ "T3a", SB7_CAT_TRAVERSAL, sb7_traversal_t3a, R_ASSM | R_CP, R_AP, 534, WALK },
	{ "T3b", SB7_CAT_TRAVERSAL, sb7_traversal_t3b, R_ASSM | R_CP, R_AP, 2644, WALK },
	{ "T3c", SB7_CAT_TRAVERSAL, sb7_traversal_t3c, R_ASSM | R_CP, R_AP, 6698, WALK },
	{ "T5", SB7_CAT_TRAVERSAL, sb7_traversal_t5, R_ASSM | R_CP, R_DOC, 72, WALK },
	/* short traversals, read-only */
	{ "ST1", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_short_traversal_st1, R_ASSM | R_CP | R_AP, 0, 1, FIXED },
	{ "ST2", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_short_traversal_st2, R_ASSM | R_CP | R_DOC, 0, 1, FIXED },
	{ "T7", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_short_traversal_t7, R_ASSM | R_CP | R_AP, 0, 1, FIXED },
	{ "Q4", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_query_q4, R_BASE | R_CP | R_DOC, 0, 9, FIXED },
	{ "Q5", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_query_q5, R_BASE | R_CP, 0, 4, FIXED },
	{ "ST9", SB7_CAT_SHORT_TRAVERSAL_RO, sb7_short_traversal_st9, R_ASSM | R_CP | R_AP, 0, 1, FIXED },
	/* short traversals, update */
	{ "ST6", SB7_CAT_SHORT_TRAVERSAL, sb7_short_traversal_st6, R_ASSM | R_CP, R_AP, 1, FIXED },
	{ "ST7", SB7_CAT_SHORT_TRAVERSAL, sb7_short_traversal_st7, R_ASSM | R_CP, R_DOC, 1, FIXED },
	{ "ST8", SB7_CAT_SHORT_TRAVERSAL, sb7_short_traversal_st8, R_CP | R_AP, R_ASSM, 1, FIXED },
	{ "ST10", SB7_CAT_SHORT_TRAVERSAL, sb7_short_traversal_st10, R_ASSM | R_CP, R_AP, 1, FIXED },
	/* short operations, read-only */
	{ "Q1", SB7_CAT_OPERATION_RO, sb7_query_q1, R_AP, 0, 1, FIXED },
	{ "Q2", SB7_CAT_OPERATION_RO, sb7_query_q2, R_AP, 0, 1, FIXED },
	{ "Q3", SB7_CAT_OPERATION_RO, sb7_query_q3, R_AP, 0, 1, FIXED },
	{ "T8", SB7_CAT_OPERATION_RO, sb7_traversal_t8, R_MAN, 0, 11, FIXED },
	{ "T9", SB7_CAT_OPERATION_RO, sb7_traversal_t9, R_MAN, 0, 1, FIXED },
	{ "OP6", SB7_CAT_OPERATION_RO, sb7_operation_op6, R_COMPLEX, 0, 1, FIXED },
	{ "OP7", SB7_CAT_OPERATION_RO, sb7_operation_op7, R_BASE | R_COMPLEX, 0, 1, FIXED },
	{ "OP8", SB7_CAT_OPERATION_RO, sb7_operation_op8, R_BASE | R_CP, 0, 1, FIXED },
	/* short operations, update */
	{ "OP9", SB7_CAT_OPERATION, sb7_operation_op9, 0, R_AP, 1, FIXED },
	{ "OP10", SB7_CAT_OPERATION, sb7_operation_op10, 0, R_AP, 1, FIXED },
	{ "OP11", SB7_CAT_OPERATION, sb7_operation_op11, 0, R_MAN, 3, FIXED },
	{ "OP12", SB7_CAT_OPERATION, sb7_operation_op12, 0, R_COMPLEX, 1, FIXED },
	{ "OP13", SB7_CAT_OPERATION, sb7_operation_op13, R_COMPLEX, R_BASE, 1, FIXED },
	{ "OP14", SB7_CAT_OPERATION, sb7_operation_op14, R_BASE, R_CP, 1, FIXED },
	{ "OP15", SB7_CAT_OPERATION, sb7_operation_op15, 0, R_AP, 2, FIXED },
	/* structural modifications */
	{ "SM1", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm1, 0, ALL, 7, FIXED },
	{ "SM2", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm2, 0, ALL, 5, FIXED },
	{ "SM3", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm3, 0, ALL, 1, FIXED },
	{ "SM4", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm4, 0, ALL, 1, FIXED },
	{ "SM5", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm5, 0, ALL, 1, FIXED },
	{ "SM6", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm6, 0, ALL, 1, FIXED },
	{ "SM7", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm7, 0, ALL, 1, FIXED },
	{ "SM8", SB7_CAT_STRUCTURAL_MODIFICATION, sb7_structural_sm8, 0, ALL, 1, FIXED },
};

unsigned sb7_operation_weight(const sb7_thread_t *th, const sb7_operation_t *op)
{
	if (!op->walks_design)
		return op->weight;
	uint64_t w = (uint64_t)op->weight * (uint64_t)th->links_seen /
	             (uint64_t)th->db->params.initial_links;
	return w < 1 ? 1 : w > UINT_MAX ? UINT_MAX : (unsigned)w;
}

const char *sb7_category_name(sb7_category_t c)
{
	static const char *const names[SB7_CAT_COUNT] = {
		[SB7_CAT_TRAVERSAL] = "TRAVERSAL",
		[SB7_CAT_TRAVERSAL_RO] = "TRAVERSAL_RO",
		[SB7_CAT_SHORT_TRAVERSAL] = "SHORT_TRAVERSAL",
		[SB7_CAT_SHORT_TRAVERSAL_RO] = "SHORT_TRAVERSAL_RO",
		[SB7_CAT_OPERATION] = "OPERATION",
		[SB7_CAT_OPERATION_RO] = "OPERATION_RO",
		[SB7_CAT_STRUCTURAL_MODIFICATION] = "STRUCTURAL_MODIFICATION",
	};
	return names[c];
}

bool sb7_category_read_only(sb7_category_t c)
{
	return c == SB7_CAT_TRAVERSAL_RO || c == SB7_CAT_SHORT_TRAVERSAL_RO ||
	       c == SB7_CAT_OPERATION_RO;
}
