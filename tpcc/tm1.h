/*
 * tpcc/tm1.h — what TM1's conventional and DORA runs (tm1.c) share with
 * its run over private tables (tm1_private.c): the rows, their keys, a
 * transaction's input, the database and a DORA terminal's slot.  Private
 * to tpcc/.
 */
#ifndef POTM_TM1_H
#define POTM_TM1_H

#include "harness.h"

#include <potm/dora.h>
#include <potm/store.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TM1_WINDOW 4        /* a DORA terminal's outstanding transactions, by default */
#define TM1_WINDOW_MAX 64

enum tm1_type {
	GET_SUBSCRIBER_DATA, GET_NEW_DESTINATION, GET_ACCESS_DATA, UPDATE_SUBSCRIBER_DATA,
	UPDATE_LOCATION, INSERT_CALL_FORWARDING, DELETE_CALL_FORWARDING, TM1_TYPES
};

/* ---- records ----------------------------------------------------------- */

typedef struct tm1_subscriber {
	int64_t s_id;
	uint32_t msc_location, vlr_location;
	uint8_t bit[10], hex[10], byte2[10];
	char sub_nbr[16];
} tm1_subscriber_t;

typedef struct tm1_access_info {
	int64_t s_id;
	int32_t ai_type, data1, data2;
	char data3[4], data4[6];
} tm1_access_info_t;

typedef struct tm1_special_facility {
	int64_t s_id;
	int32_t sf_type, is_active, error_cntrl, data_a;
	char data_b[6];
} tm1_special_facility_t;

typedef struct tm1_call_forwarding {
	int64_t s_id;
	int32_t sf_type, start_time, end_time;
	char numberx[16];
} tm1_call_forwarding_t;

/* Keys: a subscriber's rows of a type are s_id << 2 | type - 1; its
 * forwardings s_id << 4 | (sf_type - 1) << 2 | start_time / 8, so a
 * special facility's forwardings are one range in start_time order. */
static inline uint64_t ai_key(uint64_t s, uint32_t t)
{
	return s << 2 | (t - 1);
}

static inline uint64_t cf_key(uint64_t s, uint32_t sf, uint32_t start)
{
	return s << 4 | (uint64_t)(sf - 1) << 2 | start / 8;
}

typedef struct tm1_in {
	enum tm1_type type;
	uint64_t s_id;            /* 0: known by sub_nbr only */
	uint64_t sub_nbr;
	uint32_t ai_type, sf_type, start_time, end_time;
	uint32_t bit_1, data_a, vlr_location;
	char numberx[16];
} tm1_in_t;

typedef struct tm1_worker {
	uint64_t done[TM1_TYPES], ok[TM1_TYPES];
	uint64_t retries;
	uint64_t lo, hi;          /* the subscribers it draws from (-A: its own) */
	bench_lat_t lat[TM1_TYPES];
	/* -e dora-inline, its executor's alone: free slots, slots whose
	 * outcome arrived (done runs on the submitter), slots submitted */
	struct tm1_slot *free, *finished;
	unsigned outstanding;
} __attribute__((aligned(64))) tm1_worker_t;

typedef struct tm1_db {
	uint64_t subscribers;
	unsigned threads;
	uint64_t seed;
	store_table_t *sub, *ai, *sf, *cf;
	store_index_t *by_nbr;
	uint64_t cf_loaded;
	tm1_worker_t *worker;
	/* DORA */
	potm_dora_t *d;
	struct tm1_private *priv;  /* -e dora-private: the executors' tables */
	const struct tm1_acts *acts;   /* the execution's actions in tm1.c's graphs */
	struct tm1_slot *slots;   /* [threads][window] */
	unsigned window;
	bool inline_mode;         /* -e dora-inline: potm_dora_set_inline */
	atomic_uint finished;
} tm1_db_t;

enum { LK_SUB = 1, LK_AI, LK_SF, LK_CF };
enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE };

typedef struct tm1_slot {
	_Atomic int state;
	struct tm1_slot *next;    /* -e dora-inline: in its worker's lists */
	int outcome;
	tm1_db_t *db;
	unsigned owner;
	uint64_t t0;
	tm1_in_t in;
	uint64_t s;               /* s_id, given or looked up */
	int found;                /* a read transaction found its rows */
	union {                   /* what a read transaction read (private) */
		tm1_subscriber_t sub;
		tm1_access_info_t ai;
		char numberx[16];
	} out;
} tm1_slot_t;

/* What differs between -e dora and -e dora-private: the actions, in
 * where they read and write the rows; the flow graphs over them (phases,
 * routes, local locks) are tm1.c's alone.  Every action's arg is its
 * slot. */
typedef struct tm1_acts {
	potm_dora_fn read;      /* the three read transactions */
	potm_dora_fn upd_sub, upd_sf;   /* UPDATE_SUBSCRIBER_DATA's two */
	potm_dora_fn lookup;    /* the secondary action: s_id from sub_nbr */
	potm_dora_fn by_nbr;    /* the three by sub_nbr once s_id is known */
} tm1_acts_t;


/* tm1_private.c (-e dora-private): each executor's private tables
 * (<potm/store_private.h>) filled from the shared ones (quiescent, plain
 * reads) with the subscribers its range rule gives it, and a private
 * sub_nbr -> s_id table per executor for the secondary action, which
 * rule 1 routes by a hash of sub_nbr.  0, or -1 (out of memory, a
 * message printed).  Before any transaction; db->d made with its two
 * rules and set private. */
int tm1_private_setup(tm1_db_t *db);
/* The actions over the private tables, for tm1.c's flow graphs. */
extern const tm1_acts_t tm1_private_acts;
/* tm1.c's checks on the private tables (quiescent). */
void tm1_private_check(tm1_db_t *db, uint64_t inserted, uint64_t deleted, bench_verdict_t *v);
void tm1_private_free(tm1_db_t *db);

#endif /* POTM_TM1_H */
