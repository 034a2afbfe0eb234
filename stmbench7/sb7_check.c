/*
 * stmbench7/sb7_check.c — the invariant check run after every benchmark
 * run, and the structure hash.
 *
 * What must hold after any sequence of committed operations:
 *  - the assembly tree is well formed (parents, levels, module) and the
 *    two assembly indexes hold exactly its nodes;
 *  - base->composite links are a bag mirrored exactly by usedIn;
 *  - every composite part has its document (title indexed, text intact:
 *    a prefix swap is all or nothing), its num_atomic_per_comp parts and
 *    nothing else; the composite index holds exactly these;
 *  - every atomic part has its ring connection plus num_conn_per_atomic
 *    others, inside its composite part, each listed at both ends; the id
 *    index holds exactly the parts of indexed composite parts, and the
 *    build-date index holds each part once, under its date;
 *  - each id pool and the live objects partition 1..capacity;
 *  - the manual's 'I'/'i' swap (OP11) is all or nothing.
 */
#include "sb7_check.h"

#include <stdarg.h>
#include <string.h>

#include "sb7_tm.h"

#define SB7_CHECK_DETAILS 20

typedef struct sb7_checker {
	sb7_db_t *db;
	FILE *err;
	long violations;
	sb7_census_t census;
} sb7_checker_t;

static void sb7_violation(sb7_checker_t *ck, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb7_violation(sb7_checker_t *ck, const char *fmt, ...)
{
	if (ck->violations++ < SB7_CHECK_DETAILS) {
		va_list ap;
		va_start(ap, fmt);
		fputs("stmbench7: invariant violated: ", ck->err);
		vfprintf(ck->err, fmt, ap);
		fputc('\n', ck->err);
		va_end(ap);
	}
}

#define SB7_EXPECT(ck, cond, ...)                        \
	do {                                             \
		if (!(cond))                             \
			sb7_violation((ck), __VA_ARGS__); \
	} while (0)

/* ---- assemblies ------------------------------------------------------------------ */

static void sb7_check_base(sb7_checker_t *ck, sb7_base_assembly_t *ba)
{
	sb7_db_t *db = ck->db;
	long id = SB7_LOAD(&ba->a.id);
	ck->census.base_assemblies++;
	SB7_EXPECT(ck, sb7_map_get(&db->base_by_id, id) == ba,
	           "base assembly %ld is not indexed under its id", id);
	long n = sb7_vec_count(&ba->components);
	ck->census.component_links += n;
	for (long i = 0; i < n; i++) {
		sb7_composite_part_t *cp = sb7_vec_get(&ba->components, i);
		long cid = SB7_LOAD(&cp->id);
		SB7_EXPECT(ck, sb7_map_get(&db->composite_by_id, cid) == cp,
		           "base assembly %ld uses composite part %ld, which is not indexed", id, cid);
		long links = sb7_vec_occurrences(&ba->components, cp);
		long back = sb7_vec_occurrences(&cp->used_in, ba);
		SB7_EXPECT(ck, links == back,
		           "base assembly %ld uses composite part %ld %ld time(s), its usedIn says %ld",
		           id, cid, links, back);
	}
}

static void sb7_check_complex(sb7_checker_t *ck, sb7_complex_assembly_t *ca, long level)
{
	sb7_db_t *db = ck->db;
	long id = SB7_LOAD(&ca->a.id);
	ck->census.complex_assemblies++;
	SB7_EXPECT(ck, SB7_LOAD(&ca->a.kind) == SB7_COMPLEX_ASSEMBLY,
	           "complex assembly %ld has the wrong kind", id);
	SB7_EXPECT(ck, SB7_LOAD(&ca->level) == level,
	           "complex assembly %ld is at level %ld, expected %ld", id,
	           (long)SB7_LOAD(&ca->level), level);
	SB7_EXPECT(ck, sb7_map_get(&db->complex_by_id, id) == ca,
	           "complex assembly %ld is not indexed under its id", id);
	long n = sb7_vec_count(&ca->sub_assemblies);
	SB7_EXPECT(ck, n >= 1, "complex assembly %ld has no sub-assemblies", id);
	for (long i = 0; i < n; i++) {
		sb7_assembly_t *sub = sb7_vec_get(&ca->sub_assemblies, i);
		long sid = SB7_LOAD(&sub->id);
		SB7_EXPECT(ck, SB7_LOAD(&sub->super_assembly) == ca,
		           "assembly %ld under complex assembly %ld names another parent", sid, id);
		SB7_EXPECT(ck, SB7_LOAD(&sub->module) == db->module,
		           "assembly %ld belongs to another module", sid);
		SB7_EXPECT(ck, sb7_vec_occurrences(&ca->sub_assemblies, sub) == 1,
		           "assembly %ld is listed more than once under %ld", sid, id);
		long kind = SB7_LOAD(&sub->kind);
		if (level == 2) {
			SB7_EXPECT(ck, kind == SB7_BASE_ASSEMBLY,
			           "level-2 assembly %ld has a complex child %ld", id, sid);
			if (kind == SB7_BASE_ASSEMBLY)
				sb7_check_base(ck, (sb7_base_assembly_t *)sub);
		} else {
			SB7_EXPECT(ck, kind == SB7_COMPLEX_ASSEMBLY,
			           "level-%ld assembly %ld has a base child %ld", level, id, sid);
			if (kind == SB7_COMPLEX_ASSEMBLY)
				sb7_check_complex(ck, (sb7_complex_assembly_t *)sub, level - 1);
		}
	}
}

/* ---- pools ------------------------------------------------------------------------ */

/* live[id] says which ids belong to live objects; the pool must hold the
 * others, each once. */
static void sb7_check_pool(sb7_checker_t *ck, const char *what, sb7_idpool_t *pool,
                           const unsigned char *live, long live_count)
{
	long cap = pool->capacity, avail = sb7_idpool_available(pool);
	SB7_EXPECT(ck, avail + live_count == cap,
	           "%s ids: %ld free + %ld live != capacity %ld", what, avail, live_count, cap);
	unsigned char *seen = calloc((size_t)cap + 1, 1);
	if (seen == NULL) {
		fprintf(stderr, "stmbench7: out of memory\n");
		abort();
	}
	for (long i = 0; i < avail && i < cap; i++) {
		long id = sb7_idpool_peek(pool, i);
		if (id < 1 || id > cap) {
			sb7_violation(ck, "%s id pool holds %ld, outside 1..%ld", what, id, cap);
			continue;
		}
		SB7_EXPECT(ck, !seen[id], "%s id %ld is free twice", what, id);
		SB7_EXPECT(ck, !live[id], "%s id %ld is free and in use", what, id);
		seen[id] = 1;
	}
	free(seen);
}

static unsigned char *sb7_id_bitmap(long cap)
{
	unsigned char *b = calloc((size_t)cap + 1, 1);
	if (b == NULL) {
		fprintf(stderr, "stmbench7: out of memory\n");
		abort();
	}
	return b;
}

/* Mark the keys of an id index; returns how many there are. */
static long sb7_mark_index(sb7_checker_t *ck, const char *what, sb7_map_t *m,
                           unsigned char *live, long cap)
{
	long n = 0;
	SB7_MAP_FOREACH(node, m) {
		long id = sb7_map_node_key(node);
		if (id < 1 || id > cap)
			sb7_violation(ck, "%s index holds id %ld, outside 1..%ld", what, id, cap);
		else
			live[id] = 1;
		n++;
	}
	return n;
}

/* ---- texts -------------------------------------------------------------------------- */

static long sb7_lines_for(long min_length, long line_len)
{
	long lines = (min_length + line_len - 1) / line_len;
	return lines < 1 ? 1 : lines;
}

static void sb7_check_document(sb7_checker_t *ck, sb7_document_t *doc, long cid)
{
	char line[96];
	snprintf(line, sizeof line, "I am the documentation for composite part #%ld\n", cid);
	long len = (long)strlen(line);
	long lines = sb7_lines_for(ck->db->params.document_size, len);
	long have = sb7_text_length(&doc->text), capitals = sb7_text_count_char(&doc->text, 'I');
	if (sb7_text_starts_with(&doc->text, "I am")) {
		SB7_EXPECT(ck, have == lines * len && capitals == lines,
		           "document of composite part %ld: %ld bytes and %ld 'I', expected %ld and %ld",
		           cid, have, capitals, lines * len, lines);
	} else if (sb7_text_starts_with(&doc->text, "This is")) {
		SB7_EXPECT(ck, have == lines * len + 3 && capitals == lines - 1,
		           "document of composite part %ld: %ld bytes and %ld 'I', expected %ld and %ld",
		           cid, have, capitals, lines * len + 3, lines - 1);
	} else {
		sb7_violation(ck, "document of composite part %ld starts with neither \"I am\" nor \"This is\"",
		              cid);
	}
}

static void sb7_check_manual(sb7_checker_t *ck)
{
	sb7_module_t *module = ck->db->module;
	sb7_manual_t *manual = SB7_LOAD(&module->manual);
	SB7_EXPECT(ck, SB7_LOAD(&manual->module) == module, "the manual names another module");
	char line[64];
	snprintf(line, sizeof line, "I am the manual for module #%ld\n", (long)SB7_LOAD(&module->id));
	long len = (long)strlen(line);
	long lines = sb7_lines_for(ck->db->params.manual_size, len);
	long have = sb7_text_length(&manual->text);
	long upper = sb7_text_count_char(&manual->text, 'I');
	long lower = sb7_text_count_char(&manual->text, 'i');
	int first = sb7_text_first_char(&manual->text);
	SB7_EXPECT(ck, have == lines * len, "the manual has %ld bytes, expected %ld", have, lines * len);
	SB7_EXPECT(ck, (first == 'I' && upper == lines && lower == 0) ||
	                       (first == 'i' && lower == lines && upper == 0),
	           "the manual starts with '%c' and has %ld 'I' and %ld 'i' (%ld lines): a partial OP11",
	           first, upper, lower, lines);
}

/* ---- composite and atomic parts ---------------------------------------------------------- */

static void sb7_check_composite(sb7_checker_t *ck, sb7_composite_part_t *cp, long key,
                                unsigned char *doc_live, long *doc_count)
{
	sb7_db_t *db = ck->db;
	const sb7_params_t *p = &db->params;
	long id = SB7_LOAD(&cp->id);
	ck->census.composite_parts++;
	SB7_EXPECT(ck, key == id, "composite index key %ld holds composite part %ld", key, id);

	sb7_document_t *doc = SB7_LOAD(&cp->documentation);
	long did = SB7_LOAD(&doc->id);
	SB7_EXPECT(ck, SB7_LOAD(&doc->part) == cp && SB7_LOAD(&doc->composite_id) == id,
	           "document %ld does not point back to composite part %ld", did, id);
	char title[SB7_TITLE_SIZE];
	sb7_document_title(title, sizeof title, id);
	SB7_EXPECT(ck, sb7_strmap_get(&db->document_by_title, title) == doc,
	           "\"%s\" is not indexed by title", title);
	if (did >= 1 && did <= db->document_ids.capacity) {
		SB7_EXPECT(ck, !doc_live[did], "document id %ld is used twice", did);
		doc_live[did] = 1;
	} else {
		sb7_violation(ck, "document id %ld outside the pool", did);
	}
	(*doc_count)++;
	sb7_check_document(ck, doc, id);

	long users = sb7_vec_count(&cp->used_in);
	for (long i = 0; i < users; i++) {
		sb7_base_assembly_t *ba = sb7_vec_get(&cp->used_in, i);
		long bid = SB7_LOAD(&ba->a.id);
		SB7_EXPECT(ck, sb7_map_get(&db->base_by_id, bid) == ba,
		           "composite part %ld is used by base assembly %ld, which is not indexed", id, bid);
		SB7_EXPECT(ck, sb7_vec_occurrences(&ba->components, cp) == sb7_vec_occurrences(&cp->used_in, ba),
		           "composite part %ld and base assembly %ld disagree on their links", id, bid);
	}
	ck->census.component_links -= users;   /* must come back to 0 */

	long n = sb7_vec_count(&cp->parts);
	SB7_EXPECT(ck, n == p->num_atomic_per_comp,
	           "composite part %ld has %ld atomic parts, expected %d", id, n, p->num_atomic_per_comp);
	sb7_atomic_part_t *root = SB7_LOAD(&cp->root_part);
	SB7_EXPECT(ck, sb7_vec_occurrences(&cp->parts, root) == 1,
	           "composite part %ld: its root part is not one of its parts", id);
	for (long i = 0; i < n; i++) {
		sb7_atomic_part_t *ap = sb7_vec_get(&cp->parts, i);
		long aid = SB7_LOAD(&ap->id);
		SB7_EXPECT(ck, SB7_LOAD(&ap->part_of) == cp,
		           "atomic part %ld in composite part %ld names another owner", aid, id);
		SB7_EXPECT(ck, sb7_map_get(&db->atomic_by_id, aid) == ap,
		           "atomic part %ld of composite part %ld is not indexed", aid, id);
	}
}

static void sb7_check_atomic(sb7_checker_t *ck, sb7_atomic_part_t *ap, long key)
{
	sb7_db_t *db = ck->db;
	const sb7_params_t *p = &db->params;
	long id = SB7_LOAD(&ap->id);
	ck->census.atomic_parts++;
	SB7_EXPECT(ck, key == id, "atomic index key %ld holds atomic part %ld", key, id);
	sb7_composite_part_t *owner = SB7_LOAD(&ap->part_of);
	SB7_EXPECT(ck, sb7_map_get(&db->composite_by_id, SB7_LOAD(&owner->id)) == owner,
	           "atomic part %ld belongs to a composite part that is not indexed", id);
	int x = SB7_LOAD(&ap->x), y = SB7_LOAD(&ap->y);
	SB7_EXPECT(ck, x >= 0 && x < p->xy_range && y >= 0 && y < p->xy_range,
	           "atomic part %ld at (%d, %d)", id, x, y);

	long nto = sb7_vec_count(&ap->to);
	SB7_EXPECT(ck, nto == p->num_conn_per_atomic + 1,
	           "atomic part %ld has %ld outgoing connections, expected %d", id, nto,
	           p->num_conn_per_atomic + 1);
	ck->census.connections += nto;
	for (long i = 0; i < nto; i++) {
		sb7_connection_t *c = sb7_vec_get(&ap->to, i);
		sb7_atomic_part_t *dest = SB7_LOAD(&c->to);
		SB7_EXPECT(ck, SB7_LOAD(&c->from) == ap, "a connection out of atomic part %ld names another source", id);
		SB7_EXPECT(ck, SB7_LOAD(&dest->part_of) == owner,
		           "a connection leaves the composite part of atomic part %ld", id);
		SB7_EXPECT(ck, sb7_vec_occurrences(&dest->from, c) == 1,
		           "a connection from atomic part %ld is not listed once at its destination", id);
	}
	long nfrom = sb7_vec_count(&ap->from);
	for (long i = 0; i < nfrom; i++) {
		sb7_connection_t *c = sb7_vec_get(&ap->from, i);
		SB7_EXPECT(ck, SB7_LOAD(&c->to) == ap, "a connection into atomic part %ld names another destination", id);
		SB7_EXPECT(ck, sb7_vec_occurrences(&SB7_LOAD(&c->from)->to, c) == 1,
		           "a connection into atomic part %ld is not listed once at its source", id);
	}
	ck->census.connections -= nfrom;   /* must come back to 0 */

	int date = SB7_LOAD(&ap->build_date);
	/* Dates move by one step from their initial range. */
	SB7_EXPECT(ck, date >= p->min_atomic_date - 1 && date <= p->max_atomic_date + 1,
	           "atomic part %ld has build date %d", id, date);
	sb7_vec_t *same_date = sb7_map_get(&db->atomic_by_date, date);
	SB7_EXPECT(ck, same_date != NULL && sb7_vec_occurrences(same_date, ap) == 1,
	           "atomic part %ld is not listed once under its build date %d", id, date);
}

struct sb7_title_count {
	long n;
};

static void sb7_count_title(void *ctx, const sb7_strmap_entry_t *e)
{
	(void)e;
	((struct sb7_title_count *)ctx)->n++;
}

long sb7_check_invariants(sb7_db_t *db, FILE *err, sb7_census_t *census)
{
	const sb7_params_t *p = &db->params;
	sb7_checker_t ck = { .db = db, .err = err };
	sb7_module_t *module = db->module;

	sb7_complex_assembly_t *root = SB7_LOAD(&module->design_root);
	SB7_EXPECT(&ck, SB7_LOAD(&root->a.super_assembly) == NULL, "the design root has a parent");
	sb7_check_complex(&ck, root, p->num_assm_levels);
	sb7_check_manual(&ck);

	unsigned char *live = sb7_id_bitmap(p->max_complex_assm);
	long n = sb7_mark_index(&ck, "complex assembly", &db->complex_by_id, live, p->max_complex_assm);
	SB7_EXPECT(&ck, n == ck.census.complex_assemblies,
	           "%ld complex assemblies indexed, %ld in the tree", n, ck.census.complex_assemblies);
	sb7_check_pool(&ck, "complex assembly", &db->complex_ids, live, n);
	free(live);

	live = sb7_id_bitmap(p->max_base_assm);
	n = sb7_mark_index(&ck, "base assembly", &db->base_by_id, live, p->max_base_assm);
	SB7_EXPECT(&ck, n == ck.census.base_assemblies,
	           "%ld base assemblies indexed, %ld in the tree", n, ck.census.base_assemblies);
	sb7_check_pool(&ck, "base assembly", &db->base_ids, live, n);
	free(live);

	long links = ck.census.component_links;
	unsigned char *doc_live = sb7_id_bitmap(db->document_ids.capacity);
	long docs = 0;
	SB7_MAP_FOREACH(node, &db->composite_by_id)
		sb7_check_composite(&ck, sb7_map_node_value(node), sb7_map_node_key(node), doc_live, &docs);
	SB7_EXPECT(&ck, ck.census.component_links == 0,
	           "base assemblies hold %ld component links, usedIn bags %ld", links,
	           links - ck.census.component_links);
	ck.census.component_links = links;
	sb7_check_pool(&ck, "document", &db->document_ids, doc_live, docs);
	free(doc_live);
	struct sb7_title_count titles = { 0 };
	sb7_strmap_foreach(&db->document_by_title, sb7_count_title, &titles);
	SB7_EXPECT(&ck, titles.n == docs, "%ld titles indexed, %ld documents", titles.n, docs);

	live = sb7_id_bitmap(p->max_comp_parts);
	n = sb7_mark_index(&ck, "composite part", &db->composite_by_id, live, p->max_comp_parts);
	sb7_check_pool(&ck, "composite part", &db->composite_ids, live, n);
	free(live);

	SB7_MAP_FOREACH(node, &db->atomic_by_id)
		sb7_check_atomic(&ck, sb7_map_node_value(node), sb7_map_node_key(node));
	SB7_EXPECT(&ck, ck.census.connections == 0,
	           "outgoing and incoming connection lists differ in total by %ld", ck.census.connections);
	long expected_atomic = ck.census.composite_parts * p->num_atomic_per_comp;
	SB7_EXPECT(&ck, ck.census.atomic_parts == expected_atomic,
	           "%ld atomic parts indexed, the composite parts hold %ld",
	           ck.census.atomic_parts, expected_atomic);
	ck.census.connections = ck.census.atomic_parts * (p->num_conn_per_atomic + 1);
	live = sb7_id_bitmap(p->max_atomic_parts);
	n = sb7_mark_index(&ck, "atomic part", &db->atomic_by_id, live, p->max_atomic_parts);
	sb7_check_pool(&ck, "atomic part", &db->atomic_ids, live, n);
	free(live);

	long dated = 0;
	SB7_MAP_FOREACH(node, &db->atomic_by_date) {
		long date = sb7_map_node_key(node);
		sb7_vec_t *same_date = sb7_map_node_value(node);
		long k = sb7_vec_count(same_date);
		for (long i = 0; i < k; i++) {
			sb7_atomic_part_t *ap = sb7_vec_get(same_date, i);
			long aid = SB7_LOAD(&ap->id);
			SB7_EXPECT(&ck, SB7_LOAD(&ap->build_date) == date,
			           "atomic part %ld is listed under date %ld but has %d", aid, date,
			           (int)SB7_LOAD(&ap->build_date));
			SB7_EXPECT(&ck, sb7_map_get(&db->atomic_by_id, aid) == ap,
			           "the build-date index lists atomic part %ld, which is not indexed", aid);
		}
		dated += k;
	}
	SB7_EXPECT(&ck, dated == ck.census.atomic_parts,
	           "the build-date index lists %ld atomic parts, there are %ld", dated,
	           ck.census.atomic_parts);

	if (ck.violations > SB7_CHECK_DETAILS)
		fprintf(err, "stmbench7: ... %ld invariant violations in all\n", ck.violations);
	if (census)
		*census = ck.census;
	return ck.violations;
}

/* ---- hash ------------------------------------------------------------------------------ */

static uint64_t sb7_hash_step(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

static uint64_t sb7_hash_pool(uint64_t h, sb7_idpool_t *pool)
{
	long avail = sb7_idpool_available(pool);
	h = sb7_hash_step(h, (uint64_t)avail);
	for (long i = 0; i < avail; i++)
		h = sb7_hash_step(h, (uint64_t)sb7_idpool_peek(pool, i));
	return h;
}

uint64_t sb7_structure_hash(sb7_db_t *db)
{
	uint64_t h = 0x5b7;
	sb7_module_t *module = db->module;
	h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&module->type));
	h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&module->build_date));
	h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&module->design_root)->a.id));
	h = sb7_text_hash(&SB7_LOAD(&module->manual)->text, h);

	SB7_MAP_FOREACH(node, &db->complex_by_id) {
		sb7_complex_assembly_t *ca = sb7_map_node_value(node);
		sb7_complex_assembly_t *up = SB7_LOAD(&ca->a.super_assembly);
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ca->a.id));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ca->a.type));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ca->a.build_date));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ca->level));
		h = sb7_hash_step(h, up ? (uint64_t)SB7_LOAD(&up->a.id) : 0);
		long n = sb7_vec_count(&ca->sub_assemblies);
		for (long i = 0; i < n; i++) {
			sb7_assembly_t *sub = sb7_vec_get(&ca->sub_assemblies, i);
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&sub->kind));
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&sub->id));
		}
	}
	SB7_MAP_FOREACH(node, &db->base_by_id) {
		sb7_base_assembly_t *ba = sb7_map_node_value(node);
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ba->a.id));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ba->a.type));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ba->a.build_date));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&ba->a.super_assembly)->a.id));
		long n = sb7_vec_count(&ba->components);
		for (long i = 0; i < n; i++)
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&((sb7_composite_part_t *)
			                                           sb7_vec_get(&ba->components, i))->id));
	}
	SB7_MAP_FOREACH(node, &db->composite_by_id) {
		sb7_composite_part_t *cp = sb7_map_node_value(node);
		sb7_document_t *doc = SB7_LOAD(&cp->documentation);
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&cp->id));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&cp->type));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&cp->build_date));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&doc->id));
		h = sb7_text_hash(&doc->text, h);
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&cp->root_part)->id));
		long n = sb7_vec_count(&cp->used_in);
		for (long i = 0; i < n; i++)
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&((sb7_base_assembly_t *)
			                                           sb7_vec_get(&cp->used_in, i))->a.id));
		n = sb7_vec_count(&cp->parts);
		for (long i = 0; i < n; i++)
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&((sb7_atomic_part_t *)
			                                           sb7_vec_get(&cp->parts, i))->id));
	}
	SB7_MAP_FOREACH(node, &db->atomic_by_id) {
		sb7_atomic_part_t *ap = sb7_map_node_value(node);
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ap->id));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ap->type));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ap->build_date));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ap->x));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&ap->y));
		h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&ap->part_of)->id));
		long n = sb7_vec_count(&ap->to);
		for (long i = 0; i < n; i++) {
			sb7_connection_t *c = sb7_vec_get(&ap->to, i);
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&c->type));
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&c->length));
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&c->to)->id));
		}
		n = sb7_vec_count(&ap->from);
		for (long i = 0; i < n; i++) {
			sb7_connection_t *c = sb7_vec_get(&ap->from, i);
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&SB7_LOAD(&c->from)->id));
		}
	}
	SB7_MAP_FOREACH(node, &db->atomic_by_date) {
		sb7_vec_t *same_date = sb7_map_node_value(node);
		h = sb7_hash_step(h, (uint64_t)sb7_map_node_key(node));
		long n = sb7_vec_count(same_date);
		for (long i = 0; i < n; i++)
			h = sb7_hash_step(h, (uint64_t)SB7_LOAD(&((sb7_atomic_part_t *)
			                                           sb7_vec_get(same_date, i))->id));
	}
	h = sb7_hash_pool(h, &db->composite_ids);
	h = sb7_hash_pool(h, &db->document_ids);
	h = sb7_hash_pool(h, &db->atomic_ids);
	h = sb7_hash_pool(h, &db->base_ids);
	h = sb7_hash_pool(h, &db->complex_ids);
	return h;
}
