/*
 * stmbench7/sb7_struct.c — sizes, construction and destruction of the
 * structure, and the object-level updates shared by the build and the
 * structural modifications.
 */
#include "sb7_struct.h"

#include <stdio.h>
#include <string.h>

/* ---- sizes --------------------------------------------------------------- */

static void sb7_params_derive(sb7_params_t *p)
{
	long base = 1, complex = 0;
	for (int level = p->num_assm_levels; level > 1; level--) {
		complex += base;
		base *= p->num_assm_per_assm;
	}
	p->initial_comp_parts = p->num_comp_per_module;   /* one module */
	p->initial_base_assm = base;
	p->initial_complex_assm = complex;
	p->initial_links = base * p->num_comp_per_assm;
	/* The specification's 5 % of head room, rounded down. */
	p->max_comp_parts = p->initial_comp_parts * 105 / 100;
	p->max_atomic_parts = p->max_comp_parts * p->num_atomic_per_comp;
	p->max_base_assm = p->initial_base_assm * 105 / 100;
	p->max_complex_assm = p->initial_complex_assm * 105 / 100;
}

int sb7_params_for_size(sb7_params_t *p, const char *name)
{
	*p = (sb7_params_t){
		.num_atomic_per_comp = 20,
		.num_conn_per_atomic = 6,
		.document_size = 20000,
		.manual_size = 1000000,
		.num_comp_per_module = 50,
		.num_assm_per_assm = 3,
		.num_assm_levels = 7,
		.num_comp_per_assm = 3,
		.min_atomic_date = 1000, .max_atomic_date = 1999,
		.min_young_comp_date = 2000, .max_young_comp_date = 2999,
		.min_old_comp_date = 0, .max_old_comp_date = 999,
		.min_assm_date = 1000, .max_assm_date = 1999,
		.min_module_date = 1000, .max_module_date = 1999,
		.young_comp_percent = 10,
		.xy_range = 100000,
		.num_types = 10,
	};
	if (strcmp(name, "small") == 0 || strcmp(name, "s") == 0) {
		p->size_name = "small";
	} else if (strcmp(name, "medium") == 0 || strcmp(name, "m") == 0) {
		p->size_name = "medium";
		p->num_comp_per_module = 500;
	} else if (strcmp(name, "big") == 0 || strcmp(name, "b") == 0) {
		p->size_name = "big";
		p->num_comp_per_module = 500;
		p->num_atomic_per_comp = 200;
	} else if (strcmp(name, "tiny") == 0 || strcmp(name, "t") == 0) {
		/* Not in the specification: for tests, every operation and
		 * every failure path at a fraction of the cost.  Pools keep
		 * some head room (21 / 210 / 85 / 42 ids). */
		p->size_name = "tiny";
		p->num_comp_per_module = 20;
		p->num_atomic_per_comp = 10;
		p->num_assm_levels = 5;
		p->document_size = 2000;
		p->manual_size = 32768;
	} else {
		return -1;
	}
	sb7_params_derive(p);
	return 0;
}

/* ---- threads ------------------------------------------------------------- */

static void sb7_visited_init(sb7_visited_t *v, long max_id)
{
	v->size = max_id + 1;
	v->mark = calloc((size_t)v->size, sizeof *v->mark);
	if (v->mark == NULL) {
		fprintf(stderr, "stmbench7: out of memory\n");
		abort();
	}
	v->epoch = 0;
}

void sb7_visited_reset(sb7_visited_t *v)
{
	if (++v->epoch == 0) {
		memset(v->mark, 0, (size_t)v->size * sizeof *v->mark);
		v->epoch = 1;
	}
}

void sb7_visited_out_of_range(const sb7_visited_t *v, long id)
{
	fprintf(stderr, "stmbench7: id %ld outside 0..%ld\n", id, v->size - 1);
	abort();
}

void sb7_thread_init(sb7_thread_t *th, sb7_db_t *db, unsigned id, uint64_t seed)
{
	memset(th, 0, sizeof *th);
	th->id = id;
	th->db = db;
	/* Distinct, reproducible streams per (seed, thread). */
	th->rng.state = seed * 0x9e3779b97f4a7c15ull + (uint64_t)id * 0xd1b54a32d192ed03ull + 1;
	sb7_rand_u64(&th->rng);
	sb7_visited_init(&th->atomic_seen, db->params.max_atomic_parts);
	sb7_visited_init(&th->base_seen, db->params.max_base_assm);
	sb7_visited_init(&th->complex_seen, db->params.max_complex_assm);
	th->links_seen = db->params.initial_links;
	th->stack_cap = (long)db->params.num_atomic_per_comp * (db->params.num_conn_per_atomic + 1) + 2;
	th->stack = malloc((size_t)th->stack_cap * sizeof *th->stack);
	if (th->stack == NULL) {
		fprintf(stderr, "stmbench7: out of memory\n");
		abort();
	}
}

void sb7_thread_fini(sb7_thread_t *th)
{
	free(th->atomic_seen.mark);
	free(th->base_seen.mark);
	free(th->complex_seen.mark);
	free(th->stack);
}

/* ---- database --------------------------------------------------------------- */

void sb7_db_init(sb7_db_t *db, const sb7_params_t *params)
{
	memset(db, 0, sizeof *db);
	db->params = *params;
	const sb7_params_t *p = &db->params;
	sb7_map_init(&db->atomic_by_id, p->max_atomic_parts);
	sb7_map_init(&db->atomic_by_date, p->max_atomic_date - p->min_atomic_date + 3);
	sb7_map_init(&db->composite_by_id, p->max_comp_parts);
	sb7_map_init(&db->base_by_id, p->max_base_assm);
	sb7_map_init(&db->complex_by_id, p->max_complex_assm);
	sb7_strmap_init(&db->document_by_title, p->max_comp_parts);
	sb7_idpool_init(&db->composite_ids, p->max_comp_parts);
	sb7_idpool_init(&db->document_ids, p->max_comp_parts);
	sb7_idpool_init(&db->atomic_ids, p->max_atomic_parts);
	sb7_idpool_init(&db->base_ids, p->max_base_assm);
	sb7_idpool_init(&db->complex_ids, p->max_complex_assm);
}

void sb7_document_title(char *buf, size_t size, long composite_id)
{
	snprintf(buf, size, "Composite Part #%ld", composite_id);
}

/* ---- atomic parts and the build-date index ------------------------------------ */

static void sb7_date_index_add(sb7_db_t *db, sb7_atomic_part_t *ap, int date)
{
	sb7_vec_t *same_date = sb7_map_get(&db->atomic_by_date, date);
	if (same_date == NULL) {
		/* The index itself is written only when a date first appears;
		 * emptied sets stay, as in the original. */
		same_date = sb7_alloc(sizeof *same_date);
		sb7_vec_init_fresh(same_date, 4);
		sb7_map_insert(&db->atomic_by_date, date, same_date);
	}
	sb7_vec_push(same_date, ap);
}

static void sb7_date_index_remove(sb7_db_t *db, sb7_atomic_part_t *ap, int date)
{
	sb7_vec_t *same_date = sb7_map_get(&db->atomic_by_date, date);
	if (same_date == NULL || !sb7_vec_remove(same_date, ap)) {
		fprintf(stderr, "stmbench7: atomic part %ld missing from the build-date index (%d)\n",
		        (long)SB7_LOAD(&ap->id), date);
		abort();
	}
}

void sb7_atomic_update_build_date(sb7_db_t *db, sb7_atomic_part_t *ap)
{
	int old = SB7_LOAD(&ap->build_date);
	int fresh = sb7_next_build_date(old);
	/* The two dates are adjacent integers (2k-1 and 2k): one search
	 * finds the lower one's node, and the higher one, if it is a key, is
	 * the next node.  The long traversals T3a-c do this for every part
	 * they visit, and index searches dominate their cost. */
	int lo = old < fresh ? old : fresh, hi = old < fresh ? fresh : old;
	sb7_map_node_t *node = sb7_map_first_from(&db->atomic_by_date, lo);
	sb7_vec_t *lo_set = NULL, *hi_set = NULL;
	if (node != NULL && sb7_map_node_key(node) == lo) {
		lo_set = sb7_map_node_value(node);
		node = sb7_map_next(node);
	}
	if (node != NULL && sb7_map_node_key(node) == hi)
		hi_set = sb7_map_node_value(node);
	sb7_vec_t *from = old == lo ? lo_set : hi_set;
	sb7_vec_t *to = old == lo ? hi_set : lo_set;
	if (from == NULL || !sb7_vec_remove(from, ap)) {
		fprintf(stderr, "stmbench7: atomic part %ld missing from the build-date index (%d)\n",
		        (long)SB7_LOAD(&ap->id), old);
		abort();
	}
	SB7_STORE(&ap->build_date, fresh);
	if (to != NULL)
		sb7_vec_push(to, ap);
	else
		sb7_date_index_add(db, ap, fresh);
}

static void sb7_connect_fresh(sb7_thread_t *th, sb7_atomic_part_t *from, sb7_atomic_part_t *to)
{
	const sb7_params_t *p = &th->db->params;
	sb7_connection_t *c = sb7_alloc(sizeof *c);
	c->type = sb7_rand_between(&th->rng, 0, p->num_types - 1);
	c->length = sb7_rand_between(&th->rng, 1, p->xy_range);
	c->from = from;
	c->to = to;
	sb7_vec_push(&from->to, c);
	sb7_vec_push(&to->from, c);
}

/* ---- composite parts ------------------------------------------------------------ */

sb7_composite_part_t *sb7_create_composite_part(sb7_db_t *db, sb7_thread_t *th)
{
	const sb7_params_t *p = &db->params;
	sb7_rng_t *rng = &th->rng;
	sb7_composite_part_t *cp = sb7_alloc(sizeof *cp);
	cp->id = sb7_idpool_take(&db->composite_ids);
	cp->type = sb7_rand_between(rng, 0, p->num_types - 1);
	if (sb7_rand_below(rng, 100) < p->young_comp_percent)
		cp->build_date = sb7_rand_between(rng, p->min_young_comp_date, p->max_young_comp_date);
	else
		cp->build_date = sb7_rand_between(rng, p->min_old_comp_date, p->max_old_comp_date);
	sb7_vec_init_fresh(&cp->used_in, 4);
	sb7_vec_init_fresh(&cp->parts, p->num_atomic_per_comp);

	sb7_document_t *doc = sb7_alloc(sizeof *doc);
	doc->id = sb7_idpool_take(&db->document_ids);
	doc->composite_id = cp->id;
	doc->part = cp;
	char line[96];
	snprintf(line, sizeof line, "I am the documentation for composite part #%ld\n", cp->id);
	sb7_text_init_fresh(&doc->text, line, p->document_size);
	cp->documentation = doc;
	char title[SB7_TITLE_SIZE];
	sb7_document_title(title, sizeof title, cp->id);
	sb7_strmap_insert(&db->document_by_title, title, doc);

	/* The parts are fresh until the composite part is indexed: their
	 * fields are set with plain stores, their sets through the vec
	 * functions (which may also be used on fresh memory). */
	int n = p->num_atomic_per_comp;
	sb7_atomic_part_t **parts = (sb7_atomic_part_t **)cp->parts.items;
	for (int i = 0; i < n; i++) {
		sb7_atomic_part_t *ap = sb7_alloc(sizeof *ap);
		ap->id = sb7_idpool_take(&db->atomic_ids);
		ap->type = sb7_rand_between(rng, 0, p->num_types - 1);
		ap->build_date = sb7_rand_between(rng, p->min_atomic_date, p->max_atomic_date);
		ap->x = sb7_rand_between(rng, 0, p->xy_range - 1);
		ap->y = sb7_rand_between(rng, 0, p->xy_range - 1);
		sb7_vec_init_fresh(&ap->to, p->num_conn_per_atomic + 1);
		sb7_vec_init_fresh(&ap->from, p->num_conn_per_atomic + 1);
		ap->part_of = cp;
		parts[i] = ap;
		sb7_map_insert(&db->atomic_by_id, ap->id, ap);
		sb7_date_index_add(db, ap, ap->build_date);
	}
	cp->parts.count = n;
	cp->root_part = parts[0];
	/* A ring through all parts, then random connections inside the
	 * composite part (duplicates and self-loops allowed). */
	for (int i = 0; i < n; i++)
		sb7_connect_fresh(th, parts[i], parts[(i + 1) % n]);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < p->num_conn_per_atomic; k++)
			sb7_connect_fresh(th, parts[i], parts[sb7_rand_below(rng, n)]);
	sb7_map_insert(&db->composite_by_id, cp->id, cp);
	return cp;
}

void sb7_delete_composite_part(sb7_db_t *db, sb7_composite_part_t *cp)
{
	long id = SB7_LOAD(&cp->id);
	sb7_document_t *doc = SB7_LOAD(&cp->documentation);
	char title[SB7_TITLE_SIZE];
	sb7_document_title(title, sizeof title, id);
	sb7_strmap_remove(&db->document_by_title, title);
	sb7_idpool_give_back(&db->document_ids, SB7_LOAD(&doc->id));
	sb7_text_release(&doc->text);
	sb7_free(doc);

	/* Each entry of usedIn is one link from a base assembly. */
	long users = sb7_vec_count(&cp->used_in);
	for (long i = 0; i < users; i++) {
		sb7_base_assembly_t *ba = sb7_vec_get(&cp->used_in, i);
		sb7_vec_remove(&ba->components, cp);
	}
	sb7_vec_release(&cp->used_in);

	/* Connections never leave their composite part, so every connection
	 * dies with its source and neither endpoint's sets need updating. */
	long nparts = sb7_vec_count(&cp->parts);
	for (long i = 0; i < nparts; i++) {
		sb7_atomic_part_t *ap = sb7_vec_get(&cp->parts, i);
		long apid = SB7_LOAD(&ap->id);
		sb7_map_remove(&db->atomic_by_id, apid);
		sb7_date_index_remove(db, ap, SB7_LOAD(&ap->build_date));
		long nto = sb7_vec_count(&ap->to);
		for (long k = 0; k < nto; k++)
			sb7_free(sb7_vec_get(&ap->to, k));
		sb7_vec_release(&ap->to);
		sb7_vec_release(&ap->from);
		sb7_idpool_give_back(&db->atomic_ids, apid);
		sb7_free(ap);
	}
	sb7_vec_release(&cp->parts);
	sb7_map_remove(&db->composite_by_id, id);
	sb7_idpool_give_back(&db->composite_ids, id);
	sb7_free(cp);
}

void sb7_link_component(sb7_base_assembly_t *ba, sb7_composite_part_t *cp)
{
	sb7_vec_push(&ba->components, cp);
	sb7_vec_push(&cp->used_in, ba);
}

/* ---- assemblies ------------------------------------------------------------------ */

static void sb7_assembly_init_fresh(sb7_db_t *db, sb7_thread_t *th, sb7_assembly_t *a,
                                    long id, long kind, sb7_complex_assembly_t *parent)
{
	const sb7_params_t *p = &db->params;
	a->id = id;
	a->type = sb7_rand_between(&th->rng, 0, p->num_types - 1);
	a->build_date = sb7_rand_between(&th->rng, p->min_assm_date, p->max_assm_date);
	a->kind = kind;
	a->super_assembly = parent;
	a->module = db->module;
}

sb7_base_assembly_t *sb7_create_base_assembly(sb7_db_t *db, sb7_thread_t *th,
                                              sb7_complex_assembly_t *parent,
                                              bool with_components)
{
	const sb7_params_t *p = &db->params;
	sb7_base_assembly_t *ba = sb7_alloc(sizeof *ba);
	sb7_assembly_init_fresh(db, th, &ba->a, sb7_idpool_take(&db->base_ids),
	                        SB7_BASE_ASSEMBLY, parent);
	sb7_vec_init_fresh(&ba->components, p->num_comp_per_assm);
	sb7_map_insert(&db->base_by_id, ba->a.id, ba);
	sb7_vec_push(&parent->sub_assemblies, ba);
	if (with_components) {
		/* Uniform with replacement over the initial design library. */
		for (int i = 0; i < p->num_comp_per_assm; i++) {
			long cid = 1 + sb7_rand_below(&th->rng, p->initial_comp_parts);
			sb7_composite_part_t *cp = sb7_map_get(&db->composite_by_id, cid);
			if (cp == NULL) {
				fprintf(stderr, "stmbench7: build: composite part %ld missing\n", cid);
				abort();
			}
			sb7_link_component(ba, cp);
		}
	}
	return ba;
}

sb7_complex_assembly_t *sb7_create_complex_subtree(sb7_db_t *db, sb7_thread_t *th,
                                                   sb7_complex_assembly_t *parent, long level,
                                                   bool with_components)
{
	const sb7_params_t *p = &db->params;
	sb7_complex_assembly_t *ca = sb7_alloc(sizeof *ca);
	sb7_assembly_init_fresh(db, th, &ca->a, sb7_idpool_take(&db->complex_ids),
	                        SB7_COMPLEX_ASSEMBLY, parent);
	ca->level = level;
	sb7_vec_init_fresh(&ca->sub_assemblies, p->num_assm_per_assm);
	sb7_map_insert(&db->complex_by_id, ca->a.id, ca);
	if (parent != NULL)
		sb7_vec_push(&parent->sub_assemblies, ca);
	for (int i = 0; i < p->num_assm_per_assm; i++) {
		if (level == 2)
			sb7_create_base_assembly(db, th, ca, with_components);
		else
			sb7_create_complex_subtree(db, th, ca, level - 1, with_components);
	}
	return ca;
}

long sb7_complex_ids_for_subtree(const sb7_params_t *p, long level)
{
	long nodes = 0, width = 1;
	for (long l = level; l >= 2; l--) {
		nodes += width;
		width *= p->num_assm_per_assm;
	}
	return nodes;
}

long sb7_base_ids_for_subtree(const sb7_params_t *p, long level)
{
	long width = 1;
	for (long l = level; l >= 2; l--)
		width *= p->num_assm_per_assm;
	return width;
}

void sb7_delete_base_assembly(sb7_db_t *db, sb7_base_assembly_t *ba)
{
	long n = sb7_vec_count(&ba->components);
	for (long i = 0; i < n; i++) {
		sb7_composite_part_t *cp = sb7_vec_get(&ba->components, i);
		sb7_vec_remove(&cp->used_in, ba);
	}
	sb7_vec_release(&ba->components);
	long id = SB7_LOAD(&ba->a.id);
	sb7_map_remove(&db->base_by_id, id);
	sb7_idpool_give_back(&db->base_ids, id);
	sb7_free(ba);
}

void sb7_delete_complex_subtree(sb7_db_t *db, sb7_complex_assembly_t *ca)
{
	long n = sb7_vec_count(&ca->sub_assemblies);
	for (long i = 0; i < n; i++) {
		sb7_assembly_t *sub = sb7_vec_get(&ca->sub_assemblies, i);
		if (SB7_LOAD(&sub->kind) == SB7_BASE_ASSEMBLY)
			sb7_delete_base_assembly(db, (sb7_base_assembly_t *)sub);
		else
			sb7_delete_complex_subtree(db, (sb7_complex_assembly_t *)sub);
	}
	sb7_vec_release(&ca->sub_assemblies);
	long id = SB7_LOAD(&ca->a.id);
	sb7_map_remove(&db->complex_by_id, id);
	sb7_idpool_give_back(&db->complex_ids, id);
	sb7_free(ca);
}

/* ---- build and teardown ----------------------------------------------------------- */

/* One transaction per composite part keeps write sets small.  The random
 * stream is restored on a retry so that the structure does not depend on
 * aborts (none are expected: no other thread runs).  A function of its own
 * so that no loop counter lives across the transaction's setjmp. */
static void sb7_build_composite_part(sb7_db_t *db, sb7_thread_t *th)
{
	const sb7_rng_t before = th->rng;
	SB7_SOLO_BEGIN();
	th->rng = before;
	sb7_create_composite_part(db, th);
	SB7_SOLO_END();
}

/* The module and its manual: the module is published through db->module
 * after the commit. */
static void sb7_build_module(sb7_db_t *db, sb7_thread_t *th)
{
	const sb7_params_t *p = &db->params;
	const sb7_rng_t before = th->rng;
	sb7_module_t *volatile module = NULL;
	SB7_SOLO_BEGIN();
	th->rng = before;
	sb7_module_t *m = sb7_alloc(sizeof *m);
	m->id = 1;
	m->type = sb7_rand_between(&th->rng, 0, p->num_types - 1);
	m->build_date = sb7_rand_between(&th->rng, p->min_module_date, p->max_module_date);
	m->design_root = NULL;
	sb7_manual_t *manual = sb7_alloc(sizeof *manual);
	manual->id = 1;
	manual->module = m;
	char line[64];
	snprintf(line, sizeof line, "I am the manual for module #%ld\n", m->id);
	sb7_text_init_fresh(&manual->text, line, p->manual_size);
	m->manual = manual;
	module = m;
	SB7_SOLO_END();
	db->module = module;
}

static void sb7_build_assembly_tree(sb7_db_t *db, sb7_thread_t *th)
{
	const sb7_rng_t before = th->rng;
	SB7_SOLO_BEGIN();
	th->rng = before;
	sb7_complex_assembly_t *root =
		sb7_create_complex_subtree(db, th, NULL, db->params.num_assm_levels, true);
	SB7_STORE(&db->module->design_root, root);
	SB7_SOLO_END();
}

void sb7_db_build(sb7_db_t *db, sb7_thread_t *th)
{
	for (long i = 0; i < db->params.initial_comp_parts; i++)
		sb7_build_composite_part(db, th);
	sb7_build_module(db, th);
	sb7_build_assembly_tree(db, th);
}

void sb7_db_destroy(sb7_db_t *db, sb7_thread_t *th)
{
	(void)th;
	/* Everything is reachable from an index, except the module with its
	 * manual, the connections (freed with their source part), the texts
	 * and the build-date sets. */
	SB7_SOLO_BEGIN();
	SB7_MAP_FOREACH(n, &db->atomic_by_id) {
		sb7_atomic_part_t *ap = sb7_map_node_value(n);
		long nto = sb7_vec_count(&ap->to);
		for (long k = 0; k < nto; k++)
			sb7_free(sb7_vec_get(&ap->to, k));
		sb7_vec_release(&ap->to);
		sb7_vec_release(&ap->from);
		sb7_free(ap);
	}
	SB7_MAP_FOREACH(n, &db->composite_by_id) {
		sb7_composite_part_t *cp = sb7_map_node_value(n);
		sb7_document_t *doc = SB7_LOAD(&cp->documentation);
		sb7_text_release(&doc->text);
		sb7_free(doc);
		sb7_vec_release(&cp->used_in);
		sb7_vec_release(&cp->parts);
		sb7_free(cp);
	}
	SB7_MAP_FOREACH(n, &db->base_by_id) {
		sb7_base_assembly_t *ba = sb7_map_node_value(n);
		sb7_vec_release(&ba->components);
		sb7_free(ba);
	}
	SB7_MAP_FOREACH(n, &db->complex_by_id) {
		sb7_complex_assembly_t *ca = sb7_map_node_value(n);
		sb7_vec_release(&ca->sub_assemblies);
		sb7_free(ca);
	}
	SB7_MAP_FOREACH(n, &db->atomic_by_date) {
		sb7_vec_t *same_date = sb7_map_node_value(n);
		sb7_vec_release(same_date);
		sb7_free(same_date);
	}
	if (db->module != NULL) {
		sb7_manual_t *manual = SB7_LOAD(&db->module->manual);
		sb7_text_release(&manual->text);
		sb7_free(manual);
		sb7_free(db->module);
	}
	sb7_map_destroy(&db->atomic_by_id);
	sb7_map_destroy(&db->atomic_by_date);
	sb7_map_destroy(&db->composite_by_id);
	sb7_map_destroy(&db->base_by_id);
	sb7_map_destroy(&db->complex_by_id);
	sb7_strmap_destroy(&db->document_by_title);
	sb7_idpool_destroy(&db->composite_ids);
	sb7_idpool_destroy(&db->document_ids);
	sb7_idpool_destroy(&db->atomic_ids);
	sb7_idpool_destroy(&db->base_ids);
	sb7_idpool_destroy(&db->complex_ids);
	SB7_SOLO_END();
	db->module = NULL;
}
