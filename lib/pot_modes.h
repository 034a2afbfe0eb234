/*
 * lib/pot_modes.h — Pot's modes (POTM_MODE), each one row of one policy
 * table (lib/config.c).
 *
 * tm_init parses POTM_MODE once, into potm_cfg_mode; the Pot backends
 * (stm/pot.c, htm/pot_htm.h through lib/pot_order.h) read the row's flags
 * and never compare mode names, so each mode, PoGL and DeSTM included, is
 * defined by its row alone.  tm_mode_name (potm/config.h) lists the names
 * in table order, for messages and for the Python package.
 */
#ifndef POTM_POT_MODES_H
#define POTM_POT_MODES_H

#include <stdbool.h>

enum potm_mode {
	POTM_MODE_POT,          /* "pot": Pot, with live promotion */
	POTM_MODE_POT_FAST,     /* "pot-fast": Pot*, without it */
	POTM_MODE_POT_ORDERED,  /* "pot-ordered": Pot-, ordered commit only */
	POTM_MODE_POGL,         /* "pogl": the preordered global lock */
	POTM_MODE_DESTM,        /* "destm": round-based, after DeSTM */
	POTM_MODE_COUNT
};

/* What a mode does.  Every mode commits in the sequencer's order (ordered
 * commit); the flags say what else it does. */
typedef struct potm_mode_policy {
	const char *name;       /* the POTM_MODE value */
	const char *thesis;     /* the mode's name in the thesis */
	bool speculative;       /* a transaction may run before its turn, so
	                           readers exist that in-place writers must
	                           keep out: stripes are marked (pot.c P2) */
	bool fast_mode;         /* a transaction that begins in its turn runs
	                           in fast mode: in place, never validated,
	                           since nobody can commit before it */
	bool live_promotion;    /* a speculative transaction whose turn comes
	                           while it runs validates, applies its
	                           writes in place and goes on in fast mode */
	bool rounds;            /* DeSTM's rounds: a transaction starts only
	                           once the previous round finished and
	                           commits only once its round-mates started */
	bool global_lock;       /* the turn is a lock: every transaction waits
	                           for it at begin and runs alone, in place */
	bool runs;              /* runs of turns (POTM_TURN_BATCH,
	                           lib/sequencer.h): a thread keeps the turn
	                           after a short transaction, so its next one
	                           begins in its turn, in fast mode */
} potm_mode_policy_t;

/* The policy table, indexed by enum potm_mode. */
extern const potm_mode_policy_t potm_mode_policies[POTM_MODE_COUNT];

/* POTM_MODE (tm_config_t.mode), parsed once by tm_init: valid between
 * tm_init and tm_shutdown, as the configuration in force. */
extern enum potm_mode potm_cfg_mode;

#endif /* POTM_POT_MODES_H */
