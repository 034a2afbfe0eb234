/*
 * lib/pot_order.h — what the Pot backends share (stm/pot.c on TL2,
 * htm/pot_rtm.c on Intel RTM, htm/pot_rot.c on POWER8): the mode in force
 * (its row of the policy table, lib/pot_modes.h), the per-thread order
 * state, the slot hand-over, waiting for the order outside
 * the RCU read-side section, and the ordering hooks that tm barriers, thread
 * enter/exit and the explicit order need (lib/sequencer.h is the order
 * itself).
 *
 * A backend's thread descriptor starts with pot_thread_t (which starts with
 * potm_thread_t), includes this header once, calls pot_order_init from its
 * init hook and pot_order_thread_init/fini from its thread hooks, and sets
 * .order = &pot_order_ops.
 *
 * The rules every Pot backend keeps (the thesis's ordered commit):
 *  - a transaction takes effect only while its thread holds the turn, and
 *    the turn is passed (pot_order_pass) only after all of its effects are
 *    in memory, so transactions take effect in slot order;
 *  - a decision that depends on shared state (tm_restart giving the slot
 *    up, tm_cancel) is taken only in the turn, on the state of that slot:
 *    tm_cancel is an ordered no-op commit, a tm_restart in the turn gives
 *    the slot up (round-robin) or keeps it (explicit order);
 *  - busy is 1 from the start of a transaction until it passed the turn, so
 *    a holder that is slow inside a transaction is not reported as stalled.
 */
#ifndef POTM_POT_ORDER_H
#define POTM_POT_ORDER_H

#include "sequencer.h"

#include <inttypes.h>

typedef struct pot_thread {
	potm_thread_t th;              /* first: the core's descriptor */
	seqr_turn_key_t key;            /* what "my turn" looks like */
	uint32_t *busy;                /* our busy word in the sequencer */
	uint64_t last_order;           /* tm_last_order() */
	seqr_run_t run;                /* its run of turns (S4); between
	                                  transactions, on = it kept the turn
	                                  at its last commit */
	bool keyed;                    /* explicit order: the supplied slot
	                                  came with a commutativity key (K0)
	                                  that the backend uses (keys) */
	uint16_t key_hash;             /* ... its hash (seqr_key_hash) */
} pot_thread_t;

static struct {
	potm_mode_policy_t mode;       /* POTM_MODE's row (lib/pot_modes.h) */
	bool explicit_order;           /* POTM_SEQUENCER=explicit */
	bool weighted;                 /* POTM_SEQUENCER=weighted */
	bool keys;                     /* the backend runs keyed transactions
	                                  (stm/pot.c K1); else keys are ignored */
} pot_order;

/* Take the mode and the order tm_init parsed, and start the sequencer.
 * backend names the backend in messages.  Returns 0 or -1 (potm_error). */
static inline int pot_order_init(const char *backend, const tm_config_t *cfg)
{
	pot_order.mode = potm_mode_policies[potm_cfg_mode];
	pot_order.explicit_order = potm_cfg_sequencer == POTM_SEQUENCER_EXPLICIT;
	pot_order.weighted = potm_cfg_sequencer == POTM_SEQUENCER_WEIGHTED;
	pot_order.keys = false;   /* the backend says (stm/pot.c K1) */
	/* Rounds are rounds of the members' turns: only round-robin has them. */
	if (pot_order.mode.rounds && potm_cfg_sequencer != POTM_SEQUENCER_ROUND_ROBIN)
		return potm_error("%s: POTM_MODE=%s runs in rounds of the threads' "
		                  "turns and needs POTM_SEQUENCER=round-robin",
		                  backend, pot_order.mode.name);
	return seqr_init(pot_order.explicit_order ? SEQR_EXPLICIT_ORDER : SEQR_ROUND_ROBIN,
	                 cfg->max_threads, cfg->turn_timeout_ms,
	                 pot_order.mode.rounds, pot_order.weighted,
	                 pot_order.mode.runs ? cfg->turn_batch : 0);
}

/* A top-level transaction begins (or restarts): in weighted order, declare
 * its weight before anything looks at the turn (a retry keeps the
 * declaration of its slot; a wait for the turn declares one if a path
 * forgot).  Every Pot backend calls it from tm_tx_start_. */
static inline void pot_order_declare(const pot_thread_t *p)
{
	if (unlikely(pot_order.weighted))
		seqr_declare(p->th.id, seqr_weight(p->th.id));
}

/* The same for a transaction that will run alone (serial mode, stm/pot.c
 * P6): the least weight, whatever tm_set_weight said.  A weight buys a
 * slot that finishes later, so that the others commit that much work
 * while the transaction runs beside them; nothing runs beside a serial
 * one, and its thread would only wait idle for its turn meanwhile. */
static inline void pot_order_declare_alone(const pot_thread_t *p)
{
	if (unlikely(pot_order.weighted))
		seqr_declare(p->th.id, 1);
}

static inline bool pot_is_turn(const pot_thread_t *p)
{
	return seqr_is_turn(&p->key);
}

/* Every transaction of the explicit order needs a slot supplied first. */
static inline void pot_order_check_supplied(const pot_thread_t *p)
{
	if (unlikely(pot_order.explicit_order && p->key.want == SEQR_HOLDER_MASK))
		tm_misuse_("POTM_SEQUENCER=explicit: call tm_set_next_order() "
		           "before each transaction");
}

/* The holder is done with its slot (commit, cancel, restart in turn). */
static inline __attribute__((always_inline)) void pot_order_pass(pot_thread_t *p)
{
	if (pot_order.explicit_order) {
		seqr_supply_done(p->th.id, &p->key);
		p->keyed = false;
	}
	seqr_run_publish(p->th.id, &p->run);
	seqr_pass(p->th.id, false);
}

/* Explicit order: the thread's transaction ended before its turn and left
 * its slot to whoever passes the turn to it (lib/sequencer.h K7): forget
 * the slot without passing. */
static inline void pot_order_forget(pot_thread_t *p)
{
	seqr_supply_done(p->th.id, &p->key);
	p->keyed = false;
}

/* The slot the thread holds while it holds the turn (its run's, S4). */
static inline uint64_t pot_order_clock(const pot_thread_t *p)
{
	return seqr_run_clock(&p->run);
}

/* The holder commits a transaction that made `accesses` accesses: it keeps
 * the turn while its run of turns is short (seqr_run_keep), else passes
 * it.  Only a backend that counts every access of the committing
 * execution may call it (the count decides the order). */
static inline __attribute__((always_inline)) void pot_order_pass_run(pot_thread_t *p,
                                                                     uint32_t accesses)
{
	if (!seqr_run_keep(accesses + 1 > accesses ? accesses + 1 : accesses, &p->run))
		pot_order_pass(p);
}

/* pot_order_pass_run for a holder whose run is on (S4): the same
 * decision, without the test that starts a run. */
static inline __attribute__((always_inline)) void pot_order_pass_in_run(pot_thread_t *p,
                                                                        uint32_t accesses)
{
	if (!seqr_run_continue(accesses + 1 > accesses ? accesses + 1 : accesses, &p->run))
		pot_order_pass(p);
}

enum pot_wait_for {
	POT_WAIT_TURN,    /* our turn */
	POT_WAIT_ROUND,   /* rounds: the round after our previous slot began */
	POT_WAIT_COMMIT,  /* our turn, and (rounds) every round-mate started */
};

/* Wait for the order before the transaction has read anything (or after a
 * hardware abort threw away what it read): leave the RCU read-side section
 * meanwhile, so that no grace period (and no tm_reclaim_barrier) waits for a
 * thread that waits for the order. */
static inline void pot_wait_outside_rcu(pot_thread_t *p, enum pot_wait_for what)
{
	bool rcu = p->th.in_rcu;
	if (rcu)
		potm_rcu_read_unlock(&p->th);
	switch (what) {
	case POT_WAIT_ROUND:
		seqr_round_begin(&p->th);
		break;
	case POT_WAIT_COMMIT:
		if (pot_order.mode.rounds)
			seqr_round_wait_mates(&p->th);
		/* fall through */
	case POT_WAIT_TURN:
		seqr_wait_turn(&p->th, &p->key);
		break;
	}
	if (rcu)
		potm_rcu_read_lock(&p->th);
}

/* ---- thread life cycle ------------------------------------------------------ */

static inline void pot_order_thread_init(pot_thread_t *p)
{
	p->last_order = TM_ORDER_NONE;
	p->run = (seqr_run_t){ 0, 0, false };
	p->busy = seqr_busy_word(p->th.id);
	if (pot_order.explicit_order)
		seqr_key_none(&p->key);
	else
		seqr_key_round_robin(&p->key, p->th.id);
	seqr_thread_join(p->th.id);   /* an event: joins at the next round boundary */
}

static inline void pot_order_thread_fini(pot_thread_t *p)
{
	seqr_run_publish(p->th.id, &p->run);   /* S4 */
	seqr_thread_leave(&p->th);    /* an event: leaves in its own turn */
}

/* ---- ordering hooks (barriers, explicit order) ------------------------------ */

static void pot_order_arrive(potm_thread_t *t)
{
	seqr_run_publish(t->id, &((pot_thread_t *)t)->run);   /* S4: the arrival takes the next slot */
	if (!pot_order.explicit_order)
		seqr_event_acquire(t);
}

static void pot_order_park(potm_thread_t *t)
{
	if (!pot_order.explicit_order)
		seqr_park(t->id);
}

static void pot_order_release(potm_thread_t *t, const unsigned *parked, unsigned n)
{
	if (pot_order.explicit_order)
		return;
	if (t != NULL)
		seqr_release_parked(t->id, parked, n);
	else
		seqr_rejoin_unordered(parked, n);
}

/* K0: a slot supplied with a key is that key's until its transaction
 * ran: a transaction of a later slot may already run beside it on the
 * strength of that key.  So the only supply allowed meanwhile is the same
 * one again. */
static int pot_order_keyed_pending(const pot_thread_t *p, uint64_t seqno, bool keyed,
                                   uint16_t hash, const char *fn)
{
	if (!p->keyed || (keyed && hash == p->key_hash &&
	                  p->key.want == seqno << SEQR_HOLDER_BITS))
		return 0;
	return potm_error("%s(%" PRIu64 "): this thread supplied slot %" PRIu64 " with a "
	                  "commutativity key and has not run its transaction; a keyed slot "
	                  "cannot be given up nor its key changed", fn, seqno,
	                  p->key.want >> SEQR_HOLDER_BITS);
}

static int pot_order_set_next(potm_thread_t *t, uint64_t seqno)
{
	if (!pot_order.explicit_order)
		return potm_error("tm_set_next_order: the sequencer is round-robin; "
		                  "set POTM_SEQUENCER=explicit (tm_config_t.sequencer)");
	pot_thread_t *p = (pot_thread_t *)t;
	if (pot_order_keyed_pending(p, seqno, false, SEQR_KEY_NONE, "tm_set_next_order") != 0)
		return -1;
	return seqr_supply(t->id, seqno, &p->key);
}

/* tm_set_next_order_key: the slot, and its key published (K0).  A key
 * asks for nothing but may be granted concurrency: a backend that cannot
 * run commuting transactions together (pot-rtm, pot-rot, and pot's modes
 * without fast mode) runs a keyed transaction exactly as a keyless one. */
static int pot_order_set_next_key(potm_thread_t *t, uint64_t seqno, uint64_t key)
{
	pot_thread_t *p = (pot_thread_t *)t;
	if (!pot_order.explicit_order)
		return potm_error("tm_set_next_order_key: a commutativity key goes with "
		                  "a slot of the explicit order, and the sequencer is %s; "
		                  "set POTM_SEQUENCER=explicit (tm_config_t.sequencer)",
		                  pot_order.weighted ? "weighted" : "round-robin");
	uint16_t hash = seqr_key_hash(key);
	if (pot_order_keyed_pending(p, seqno, hash != SEQR_KEY_NONE, hash,
	                            "tm_set_next_order_key") != 0)
		return -1;
	if (seqr_supply(t->id, seqno, &p->key) != 0)
		return -1;
	p->key_hash = hash;
	p->keyed = pot_order.keys && p->key_hash != SEQR_KEY_NONE;
	seqr_publish_key(seqno, p->key_hash);
	return 0;
}

static int pot_order_set_weight(potm_thread_t *t, uint32_t weight)
{
	seqr_set_weight(t->id, weight);   /* kept, unused, in the other orders */
	return 0;
}

static uint64_t pot_order_last(potm_thread_t *t)
{
	return ((pot_thread_t *)t)->last_order;
}

/* Whether the thread kept the turn (its run is on, between
 * transactions) is decided by its commits alone, so passing it here is an
 * event at a point of the program's own, like a barrier arrival. */
static void pot_order_end_run(potm_thread_t *t)
{
	pot_thread_t *p = (pot_thread_t *)t;
	if (p->run.on)
		pot_order_pass(p);
}

/* The turn of the running transaction's slot: a speculative attempt
 * that would wait at its commit sees false. */
static bool pot_order_turn_reached(potm_thread_t *t)
{
	return pot_is_turn((pot_thread_t *)t);
}

static const potm_order_ops_t pot_order_ops = {
	.arrive = pot_order_arrive,
	.park = pot_order_park,
	.release = pot_order_release,
	.set_next_order = pot_order_set_next,
	.set_next_order_key = pot_order_set_next_key,
	.set_weight = pot_order_set_weight,
	.last_order = pot_order_last,
	.end_run = pot_order_end_run,
	.turn_reached = pot_order_turn_reached,
};

#endif /* POTM_POT_ORDER_H */
