/*
 * potm/config.h — run-time configuration.
 *
 * A program fills a tm_config_t (start from tm_config_default()) and passes
 * it to tm_init().  Every field can also be set from the environment with the
 * POTM_* variable named beside it; the environment wins, so a binary can be
 * re-tuned without recompiling.  A value that does not parse or is out of
 * range makes tm_init() fail with a message naming the variable and the
 * allowed values (tm_last_error()); nothing is silently defaulted.
 */
#ifndef POTM_CONFIG_H
#define POTM_CONFIG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_config {
	unsigned max_threads;   /* POTM_MAX_THREADS  1..4096, default 256:
	                           logical thread ids are 0..max_threads-1 */
	int pin;                /* POTM_PIN          0|1, default 0: pin thread
	                           i to a CPU, filling NUMA node 0 first */
	unsigned lock_bits;     /* POTM_LOCK_BITS    8..28, default 20: log2 of
	                           the number of versioned locks (TL2) */
	unsigned stripe_shift;  /* POTM_STRIPE_SHIFT 3..12, default 5: log2 of
	                           the bytes one lock covers (TL2) */
	unsigned backoff_max;   /* POTM_BACKOFF_MAX  0..2^24, default 4096:
	                           cap of the randomized exponential backoff
	                           after an abort, in pause instructions */
	int extend;             /* POTM_EXTEND       0|1, default 1: a read
	                           that finds a newer version first tries to
	                           extend the snapshot (revalidate) instead of
	                           aborting.  0 = TL2 exactly as published. */
	unsigned htm_retries;   /* POTM_HTM_RETRIES  1..1000, default 10:
	                           hardware attempts before the fallback */
	int htm_fallback_only;  /* POTM_HTM_FALLBACK_ONLY 0|1, default 0: run
	                           every transaction on the HTM backends'
	                           software fallback (tests on machines without
	                           HTM; reported on stderr, never implied) */
	int htm_force;          /* POTM_HTM_FORCE    0|1, default 0: issue
	                           hardware transactions although the CPU does
	                           not report HTM (qemu-user: POWER's tbegin.
	                           runs and always fails); reported on stderr */
	int verbose;            /* POTM_VERBOSE      0|1, default 0 */
	/* Deterministic execution (the pot backend; others ignore these). */
	char mode[24];          /* POTM_MODE  pot | pot-fast | pot-ordered |
	                           pogl | destm (tm_mode_name), default "pot":
	                           Pot with fast mode and live promotion, Pot*
	                           without live promotion, Pot- with ordered
	                           commit only, PoGL (the preordered global
	                           lock) or round-based DeSTM */
	char sequencer[16];     /* POTM_SEQUENCER round-robin | weighted |
	                           explicit, default "round-robin": the order
	                           comes from the threads' logical ids, from
	                           their ids and transactions' weights
	                           (tm_set_weight), or from
	                           tm_set_next_order() */
	unsigned turn_timeout_ms; /* POTM_TURN_TIMEOUT_MS 0..3600000, default
	                           60000: a thread that holds the turn outside
	                           the TM API this long while others wait (or a
	                           gap in the explicit order) is reported as a
	                           fatal error; 0 = wait forever */
	unsigned turn_batch;    /* POTM_TURN_BATCH 0..2^24, default 65536: pot,
	                           pot-fast in round-robin order: a thread
	                           keeps the turn after a short transaction
	                           (fewer accesses than turn_batch / 16 and
	                           than 64) while
	                           its consecutive transactions have made
	                           fewer accesses (+1 each) than this, so short
	                           transactions cross between cores once per
	                           run of turns; the order stays a function of
	                           the program.  0 = one transaction per turn,
	                           as in the thesis */
	/* The Doppel layer (potm/doppel.h; ignored unless dp_init is called). */
	unsigned dp_split_ms;   /* POTM_DP_SPLIT_MS 1..10000, default 20: length
	                           of a split phase (t_s) */
	unsigned dp_stash_max;  /* POTM_DP_STASH_MAX 1..1000000, default 1024:
	                           end a split phase early once this many
	                           transactions wait in stashes (n_s) */
	unsigned dp_classify_ms; /* POTM_DP_CLASSIFY_MS 0..600000, default 200:
	                           classifier period (t_c); 0 = off, only
	                           dp_split/dp_join split records */
	unsigned dp_split_impact; /* POTM_DP_SPLIT_IMPACT 1..1000000, default
	                           100: split a record whose impact (per mille,
	                           lib/doppel/classify.c) reaches this; half of
	                           it once a record is split (T_split) */
	unsigned dp_join_impact; /* POTM_DP_JOIN_IMPACT 0..1000000, default 20:
	                           join a split record whose impact falls below
	                           this (T_join) */
	unsigned promote_writes; /* POTM_PROMOTE_WRITES 0..16777216, default
	                           256: tl2: a transaction whose write set
	                           reaches this many words takes the commit
	                           token if it is free and continues
	                           irrevocably, in place (escalation, tl2.c
	                           I4; not Pot's live promotion); 0 = never */
	unsigned promote_reads; /* POTM_PROMOTE_READS 0..16777216, default
	                           16384: tl2: a transaction that has read
	                           this many stripes shares its snapshot with
	                           the other long readers and goes on with
	                           plain reads, commits waiting meanwhile, if
	                           it has written nothing; if it has, it
	                           tries escalation; 0 = never */
	int serial;             /* POTM_SERIAL 0/1, default 0: tl2, pot: a
	                           long transaction (its writes reach
	                           serial_writes, tl2: or it starves; or
	                           tm_hint_serial) restarts in serial mode: it
	                           runs alone, the others' transactions
	                           waiting, and tm_serial() tells its body,
	                           which may run an uninstrumented clone; pogl
	                           transactions are all serial.  For programs
	                           that have a clone (STMBench7); without one,
	                           serial mode only keeps out the readers that
	                           in-place (irrevocable, fast) mode lets run */
	unsigned serial_writes; /* POTM_SERIAL_WRITES 0..16777216, default
	                           2048: with serial set, the mark at which a
	                           transaction's writes (tl2: its write set;
	                           pot: its undo log, in its turn) make it
	                           restart serially, in place of
	                           promote_writes: a restart gives the attempt
	                           up where escalation keeps it, so it waits
	                           for more; 0 = never (only hinted and
	                           starving ones run serially) */
	int silo_global_tid;    /* POTM_SILO_GLOBAL_TID 0/1, default 0: silo
	                           draws every commit's TID from one shared
	                           counter (Silo's MemSilo+GlobalTID), not
	                           from the thread's own; for measuring what
	                           the per-thread TIDs save */
	unsigned htm_coalesce;  /* POTM_HTM_COALESCE 1..64, default 4: rtm
	                           runs up to this many consecutive
	                           transactions of a thread in one hardware
	                           transaction (the commit of all but the last
	                           leaves it open, and the code between them
	                           runs inside it), backing off after a
	                           group aborts; 1 = one each */
} tm_config_t;

/* Fill *cfg with the defaults above (environment not applied). */
void tm_config_default(tm_config_t *cfg);

/* Apply the POTM_* environment variables to *cfg.  Returns 0, or -1 with
 * tm_last_error() naming the bad variable and its allowed values. */
int tm_config_from_env(tm_config_t *cfg);

/* The i-th value POTM_MODE allows (tm_config_t.mode), NULL past the last:
 * for (unsigned i = 0; tm_mode_name(i); i++) lists them all. */
const char *tm_mode_name(unsigned i);

#ifdef __cplusplus
}
#endif
#endif /* POTM_CONFIG_H */
