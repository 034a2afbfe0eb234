/*
 * stmbench7/sb7_struct.h — the STMBench7 object graph, its indexes and the
 * per-thread context of the operations.
 *
 *   module ── manual (1 MB text)
 *     └─ design root: complex assembly, level 7
 *          └─ 3 complex sub-assemblies per level ... level 2
 *               └─ 3 base assemblies (level 1)
 *                    └─ bag of composite parts (3 each, shared)
 *   composite part ── document (20 KB text)
 *     └─ set of atomic parts, a ring plus 6 random connections each
 *
 * Every field of an object is read and written through SB7_LOAD/SB7_STORE
 * (sb7_tm.h); a fresh object is initialised with plain stores before it is
 * published.  "Immutable" below means: never written after publication.
 */
#ifndef SB7_STRUCT_H
#define SB7_STRUCT_H

#include <stdbool.h>
#include <stdint.h>

#include "sb7_containers.h"
#include "sb7_text.h"

/* ---- parameters ------------------------------------------------------------ */

typedef struct sb7_params {
	const char *size_name;         /* "tiny", "small", "medium", "big" */
	int num_atomic_per_comp;       /* 20 / 200 */
	int num_conn_per_atomic;       /* 6 random connections besides the ring */
	long document_size;            /* 20,000 bytes */
	long manual_size;              /* 1,000,000 bytes */
	int num_comp_per_module;       /* 50 / 500 */
	int num_assm_per_assm;         /* 3 */
	int num_assm_levels;           /* 7 */
	int num_comp_per_assm;         /* 3 */
	/* Build dates and coordinates. */
	int min_atomic_date, max_atomic_date;            /* 1000..1999 */
	int min_young_comp_date, max_young_comp_date;    /* 2000..2999 */
	int min_old_comp_date, max_old_comp_date;        /* 0..999 */
	int min_assm_date, max_assm_date;                /* 1000..1999 */
	int min_module_date, max_module_date;            /* 1000..1999 */
	int young_comp_percent;                          /* 10 */
	int xy_range;                                    /* 100,000 */
	int num_types;                                   /* 10 */
	/* Derived: initial counts and id-pool capacities (initial x 1.05). */
	long initial_comp_parts, initial_base_assm, initial_complex_assm;
	long initial_links;      /* base assembly -> composite part links */
	long max_comp_parts, max_atomic_parts, max_base_assm, max_complex_assm;
} sb7_params_t;

/* 0, or -1 if name is not a known size. */
int sb7_params_for_size(sb7_params_t *p, const char *name);

/* ---- objects -------------------------------------------------------------- */

struct sb7_composite_part;
struct sb7_complex_assembly;
struct sb7_module;

typedef struct sb7_atomic_part {
	long id;                                /* immutable */
	int type;                               /* immutable */
	int build_date;
	int x, y;
	sb7_vec_t to;                           /* outgoing sb7_connection_t */
	sb7_vec_t from;                         /* incoming sb7_connection_t */
	struct sb7_composite_part *part_of;     /* immutable */
} sb7_atomic_part_t;

/* Immutable; owned by its source part (its `to` set). */
typedef struct sb7_connection {
	int type;
	int length;
	sb7_atomic_part_t *from, *to;
} sb7_connection_t;

typedef struct sb7_document {
	long id;                                /* immutable */
	long composite_id;                      /* immutable: the title's number */
	struct sb7_composite_part *part;        /* immutable */
	sb7_text_t text;
} sb7_document_t;

typedef struct sb7_composite_part {
	long id;                                /* immutable */
	int type;                               /* immutable */
	int build_date;
	sb7_document_t *documentation;          /* immutable */
	sb7_vec_t used_in;                      /* bag of sb7_base_assembly_t */
	sb7_vec_t parts;                        /* set of sb7_atomic_part_t */
	sb7_atomic_part_t *root_part;           /* immutable */
} sb7_composite_part_t;

enum sb7_assembly_kind { SB7_BASE_ASSEMBLY = 1, SB7_COMPLEX_ASSEMBLY = 2 };

/* The common head of both kinds of assembly. */
typedef struct sb7_assembly {
	long id;                                /* immutable, per kind */
	int type;                               /* immutable */
	int build_date;
	long kind;                              /* immutable */
	struct sb7_complex_assembly *super_assembly;  /* immutable; NULL: root */
	struct sb7_module *module;              /* immutable */
} sb7_assembly_t;

typedef struct sb7_complex_assembly {
	sb7_assembly_t a;
	long level;                             /* immutable; 2..num_assm_levels */
	sb7_vec_t sub_assemblies;               /* set of sb7_assembly_t */
} sb7_complex_assembly_t;

typedef struct sb7_base_assembly {
	sb7_assembly_t a;                       /* level 1 */
	sb7_vec_t components;                   /* bag of sb7_composite_part_t */
} sb7_base_assembly_t;

typedef struct sb7_manual {
	long id;
	struct sb7_module *module;
	sb7_text_t text;
} sb7_manual_t;

typedef struct sb7_module {
	long id;
	int type;
	int build_date;
	sb7_manual_t *manual;
	sb7_complex_assembly_t *design_root;
} sb7_module_t;

/* ---- the database ---------------------------------------------------------- */

typedef struct sb7_db {
	sb7_params_t params;            /* immutable */
	sb7_module_t *module;           /* written once, before the workers start */
	/* Indexes. */
	sb7_map_t atomic_by_id;         /* id -> sb7_atomic_part_t */
	sb7_map_t atomic_by_date;       /* build date -> sb7_vec_t of atomic parts */
	sb7_map_t composite_by_id;      /* id -> sb7_composite_part_t */
	sb7_map_t base_by_id;           /* id -> sb7_base_assembly_t */
	sb7_map_t complex_by_id;        /* id -> sb7_complex_assembly_t */
	sb7_strmap_t document_by_title; /* "Composite Part #<id>" -> sb7_document_t */
	/* Free ids (the module and the manual are never replaced: no pools). */
	sb7_idpool_t composite_ids, atomic_ids, document_ids, base_ids, complex_ids;
} sb7_db_t;

/* ---- per-thread context --------------------------------------------------- */

/* splitmix64: one word of state, so an operation can restore it before
 * each attempt and make the same choices again. */
typedef struct sb7_rng {
	uint64_t state;
} sb7_rng_t;

static inline uint64_t sb7_rand_u64(sb7_rng_t *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline long sb7_rand_below(sb7_rng_t *r, long n)
{
	return (long)(((unsigned __int128)sb7_rand_u64(r) * (uint64_t)n) >> 64);
}

/* Uniform in [lo, hi]. */
static inline int sb7_rand_between(sb7_rng_t *r, int lo, int hi)
{
	return lo + (int)sb7_rand_below(r, (long)hi - lo + 1);
}

static inline double sb7_rand_unit(sb7_rng_t *r)
{
	return (double)(sb7_rand_u64(r) >> 11) * 0x1.0p-53;
}

/* Visited marks for the traversals: mark[id] == epoch means visited in the
 * current search; a new search takes a new epoch instead of clearing. */
typedef struct sb7_visited {
	uint32_t *mark;
	long size;
	uint32_t epoch;
} sb7_visited_t;

typedef struct sb7_thread {
	unsigned id;
	sb7_db_t *db;
	sb7_rng_t rng;
	sb7_visited_t atomic_seen, base_seen, complex_seen;
	sb7_atomic_part_t **stack;      /* depth-first search */
	long stack_cap;
	/* Component links (base assembly -> composite part) met by the
	 * design walk under way, and by this thread's last complete one.
	 * With structural modifications on, the structure loses most of its
	 * links early in a run and a long traversal then takes a small
	 * fraction of its time on the initial structure; links_seen scales the traversals'
	 * weights in the weighted order (sb7_operation_weight).  It is the
	 * result of a committed transaction, so under pot it is the same in
	 * every run and the order stays deterministic. */
	long links_walked, links_seen;
} sb7_thread_t;

void sb7_thread_init(sb7_thread_t *th, sb7_db_t *db, unsigned id, uint64_t seed);
void sb7_thread_fini(sb7_thread_t *th);
/* Start a new visited set. */
void sb7_visited_reset(sb7_visited_t *v);
void sb7_visited_out_of_range(const sb7_visited_t *v, long id) __attribute__((noreturn, cold));

/* True if id was already marked; marks it.  Inline: called for every part
 * a traversal reaches. */
static inline bool sb7_visited_test_and_mark(sb7_visited_t *v, long id)
{
	if (__builtin_expect(id < 0 || id >= v->size, 0))
		sb7_visited_out_of_range(v, id);
	if (v->mark[id] == v->epoch)
		return true;
	v->mark[id] = v->epoch;
	return false;
}

/* ---- building and tearing down (sb7_struct.c) ------------------------------- */

/* The descriptor, indexes and pools, all empty (no transaction needed:
 * nothing is shared yet). */
void sb7_db_init(sb7_db_t *db, const sb7_params_t *params);

/* The initial structure, built by the calling thread (registered, no
 * other thread running) in transactions of its own: one per composite
 * part, one for the module and its manual, one for the assembly tree. */
void sb7_db_build(sb7_db_t *db, sb7_thread_t *th);

/* Free everything (no other thread may run). */
void sb7_db_destroy(sb7_db_t *db, sb7_thread_t *th);

/* Used by the build and by the structural modifications; each runs inside
 * the caller's transaction.  The caller has checked that the id pools hold
 * enough ids (the sb7_ids_needed_* functions). */
sb7_composite_part_t *sb7_create_composite_part(sb7_db_t *db, sb7_thread_t *th);
void sb7_delete_composite_part(sb7_db_t *db, sb7_composite_part_t *cp);
/* with_components: link num_comp_per_assm random composite parts of the
 * initial design library (the initial build); the structural
 * modifications create base assemblies without components. */
sb7_base_assembly_t *sb7_create_base_assembly(sb7_db_t *db, sb7_thread_t *th,
                                              sb7_complex_assembly_t *parent,
                                              bool with_components);
/* A complex assembly at level with its complete subtree below it; parent
 * NULL makes the design root. */
sb7_complex_assembly_t *sb7_create_complex_subtree(sb7_db_t *db, sb7_thread_t *th,
                                                   sb7_complex_assembly_t *parent, long level,
                                                   bool with_components);
void sb7_delete_base_assembly(sb7_db_t *db, sb7_base_assembly_t *ba);
void sb7_delete_complex_subtree(sb7_db_t *db, sb7_complex_assembly_t *ca);
void sb7_link_component(sb7_base_assembly_t *ba, sb7_composite_part_t *cp);

/* Ids a complex subtree rooted at level needs. */
long sb7_complex_ids_for_subtree(const sb7_params_t *p, long level);
long sb7_base_ids_for_subtree(const sb7_params_t *p, long level);

/* The build-date change of the specification: even dates go down by one,
 * odd dates up by one. */
static inline int sb7_next_build_date(int date)
{
	return (date % 2 == 0) ? date - 1 : date + 1;
}
void sb7_atomic_update_build_date(sb7_db_t *db, sb7_atomic_part_t *ap);

/* "Composite Part #<id>" into buf. */
void sb7_document_title(char *buf, size_t size, long composite_id);
#define SB7_TITLE_SIZE 48

#endif /* SB7_STRUCT_H */
