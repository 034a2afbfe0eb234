/*
 * stm.h — the TL2-style STM_* interface that STAMP 0.9.10's lib/tm.h
 * expects (STAMP builds with -DSTM -I$(STM) and includes <stm.h>), bound to
 * potm.  Whichever potm backend the program links (through the libtl2
 * stand-in next to this file) runs the transactions.
 *
 * Where this binding differs from TL2's own stm.h, on purpose:
 *  - Shared accesses have the size of the variable named (TL2 widens every
 *    access to a word, so a float or int access also covers its neighbour).
 *    STM_READ still yields an intptr_t and STM_READ_P a void *, as in TL2.
 *  - STM_LOCAL_WRITE logs the old value and an aborted attempt puts it
 *    back (TL2's TxStoreLocal behaviour; TL2 0.9.x's stm.h used a plain
 *    store), so a thread-local variable written inside a transaction holds
 *    what the committed attempt wrote.
 *  - The descriptor is potm's per-thread state, reached through TLS; the
 *    STM_SELF handle exists only because STAMP passes it around.
 *
 * Rules inherited from potm's TM_BEGIN: STM_BEGIN_WR()/STM_END() must be in
 * the same function and scope, nothing leaves the block but STM_END() or
 * STM_RESTART(), and a local assigned inside the block and read after an
 * abort has the value setjmp semantics give it (as with TL2).
 */
#ifndef POTM_STAMP_STM_H
#define POTM_STAMP_STM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <potm/tm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- threads ---------------------------------------------------------- */

/* The handle STAMP keeps in its STM_SELF variable. */
typedef struct stm_potm_thread {
	long id;              /* logical id given to STM_INIT_THREAD */
	int registered_here;  /* 1 if STM_INIT_THREAD registered the thread
	                         (and STM_FREE_THREAD must unregister it); 0 if
	                         the thread library had registered it already */
} stm_potm_thread_t;

#define STM_THREAD_T stm_potm_thread_t
#define STM_SELF     stm_self

void stm_potm_startup(void);
void stm_potm_shutdown(void);
stm_potm_thread_t *stm_potm_new_thread(void);
void stm_potm_init_thread(stm_potm_thread_t *thread, long id);
void stm_potm_free_thread(stm_potm_thread_t *thread);

/* potm's addition: the program's own default for tm_config_t.turn_batch
 * (POTM_TURN_BATCH: a Pot thread keeps the turn after a short transaction,
 * for its next one), applied by STM_STARTUP; the environment still wins.
 * 0 suits a program whose short transactions sit between longer work
 * outside them: the thread that kept the turn would hold the others'
 * commits up through that work, which the order cannot see.  Call it
 * before STM_STARTUP. */
void stm_potm_default_turn_batch(unsigned accesses);

/* Programs that print their own statistics call this so that STM_SHUTDOWN
 * does not print them a second time. */
void stm_potm_stats_reported(void);

#define STM_STARTUP()              stm_potm_startup()
#define STM_SHUTDOWN()             stm_potm_shutdown()
#define STM_NEW_THREAD()           stm_potm_new_thread()
#define STM_INIT_THREAD(t, id)     stm_potm_init_thread((t), (long)(id))
#define STM_FREE_THREAD(t)         stm_potm_free_thread(t)

/* ---- thread-local writes with rollback --------------------------------
 * One log per thread.  A new top-level transaction empties it before its
 * first attempt; every attempt starts by restoring what the previous
 * (aborted) attempt overwrote, newest first.
 *
 * The restore runs after the abort's longjmp, in the frame of the
 * function that holds TM_BEGIN, and must call nothing: logged variables
 * may live in the frames of functions the aborted attempt had called,
 * which are dead now and lie just below this frame, exactly where a
 * called function's frame would go.  Restoring into dead frames is
 * harmless; a callee's frame there would be overwritten.  Hence the
 * always-inline restore with plain stores and initial-exec TLS (no
 * __tls_get_addr call). */

typedef struct stm_potm_local_entry {
	void *addr;
	uint64_t old;        /* the first `size` bytes hold the old value */
	size_t size;
} stm_potm_local_entry_t;

extern __thread size_t stm_potm_local_count_
	__attribute__((tls_model("initial-exec")));
extern __thread stm_potm_local_entry_t *stm_potm_local_entries_
	__attribute__((tls_model("initial-exec")));

void stm_potm_local_log_(void *addr, size_t size);

typedef uint8_t __attribute__((may_alias)) stm_potm_u8_;
typedef uint16_t __attribute__((may_alias)) stm_potm_u16_;
typedef uint32_t __attribute__((may_alias)) stm_potm_u32_;
typedef uint64_t __attribute__((may_alias)) stm_potm_u64_;

static inline void stm_potm_local_reset_(void)
{
	if (!tm_in_tx())   /* a nested begin must keep the outer log */
		stm_potm_local_count_ = 0;
}

static inline __attribute__((always_inline)) void stm_potm_local_attempt_(void)
{
	/* Only the outermost attempt owns the log; a nested begin runs once
	 * per attempt of the outer transaction and must not replay it. */
	if (stm_potm_local_count_ == 0 || tm_self_->depth != 1)
		return;
	stm_potm_local_entry_t *entries = stm_potm_local_entries_;
	for (size_t i = stm_potm_local_count_; i-- > 0;) {
		void *addr = entries[i].addr;
		const void *old = &entries[i].old;
		switch (entries[i].size) {
		case 1: *(stm_potm_u8_ *)addr = *(const stm_potm_u8_ *)old; break;
		case 2: *(stm_potm_u16_ *)addr = *(const stm_potm_u16_ *)old; break;
		case 4: *(stm_potm_u32_ *)addr = *(const stm_potm_u32_ *)old; break;
		default: *(stm_potm_u64_ *)addr = *(const stm_potm_u64_ *)old; break;
		}
	}
	stm_potm_local_count_ = 0;
}

#define STM_LOCAL_LOGGED_STORE_(var, val)                               \
	({                                                              \
		if (tm_in_tx())                                         \
			stm_potm_local_log_((void *)&(var), sizeof(var)); \
		(var) = (val);                                          \
	})

/* ---- transactions ----------------------------------------------------- */

/* STAMP's tm.h defines TM_BEGIN and TM_END itself (on top of these), so
 * potm's macros of the same names are withdrawn and their expansion is
 * spelled out here: keep it in step with POTM_TX_BEGIN_/POTM_TX_END_ in
 * potm/static/txd.h.  As there, no local variable lives across the
 * resume point; the block is entered once per attempt. */
#undef TM_BEGIN
#undef TM_END

#define STM_BEGIN_WR()                                                  \
	stm_potm_local_reset_();                                        \
	do {                                                            \
		if (tm_txd_()->depth == 0)                              \
			(void)__builtin_setjmp(tm_self_->env);          \
		if (tm_tx_start_(tm_self_)) {                           \
			stm_potm_local_attempt_();

#define STM_END()                                                       \
			tm_tx_end_(tm_self_);                           \
		}                                                       \
	} while (0)

#define STM_BEGIN_RD() STM_BEGIN_WR()   /* potm has no read-only hint */
#define STM_RESTART()  tm_restart()

/* ---- shared accesses ---------------------------------------------------
 * TM_LOAD/TM_STORE pick the accessor by the variable's type, so an int or
 * float is accessed as 4 bytes and a long or pointer as 8. */

#define STM_READ(var)          ((intptr_t)TM_LOAD(&(var)))
#define STM_READ_P(var)        ((void *)(intptr_t)TM_LOAD(&(var)))
#define STM_READ_F(var)        (TM_LOAD(&(var)))

#define STM_WRITE(var, val)    TM_STORE(&(var), (__typeof__(var))(val))
#define STM_WRITE_P(var, val)  TM_STORE(&(var), (__typeof__(var))(val))
#define STM_WRITE_F(var, val)  TM_STORE(&(var), (__typeof__(var))(val))

#define STM_LOCAL_WRITE(var, val)    STM_LOCAL_LOGGED_STORE_(var, val)
#define STM_LOCAL_WRITE_P(var, val)  STM_LOCAL_LOGGED_STORE_(var, val)
#define STM_LOCAL_WRITE_F(var, val)  STM_LOCAL_LOGGED_STORE_(var, val)

/* ---- memory ----------------------------------------------------------- */

#define STM_MALLOC(size)  tm_malloc(size)
#define STM_FREE(ptr)     tm_free(ptr)

#ifdef __cplusplus
}
#endif
#endif /* POTM_STAMP_STM_H */
