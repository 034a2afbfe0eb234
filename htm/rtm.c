/*
 * htm/rtm.c — Intel RTM (Restricted Transactional Memory) with a global-lock
 * fallback.
 *
 *  - A transaction runs as a hardware transaction: _xbegin ... _xend, with
 *    plain loads and stores (tm.h inlines them for POTM_BACKEND_RTM).
 *  - Lock subscription: right after _xbegin the transaction reads the
 *    fallback lock and aborts itself if it is held.  The lock word is then
 *    in its read set, so a thread that takes the lock later aborts every
 *    hardware transaction in flight: fallback and hardware transactions
 *    never overlap.
 *  - Retry policy (as GCC's libitm): up to htm_retries hardware attempts;
 *    straight to the fallback on an abort that will not succeed on retry
 *    (capacity, or the retry bit clear); before retrying, wait until the
 *    lock is free, or the retry would only abort again on it.
 *  - The fallback runs under the lock with an undo log, so tm_restart and
 *    tm_cancel work on both paths.
 *  - Statistics: hardware starts/commits, aborts by cause from the status
 *    word, fallbacks and persistent aborts (the thesis's Figure 3.13
 *    metric is persistent / hardware aborts).
 *
 * An abort resumes at _xbegin inside rtm_attempt(), with every register and
 * every store made since restored by the hardware — the stack frames of
 * tm_tx_start_ and of the caller included — so no sigsetjmp is needed on
 * the hardware path.
 */
#include "potm_internal.h"
#include "rtm_decide.h"

#include <immintrin.h>

typedef struct rtm_thread {
	potm_thread_t th;
	potm_undo_t undo;     /* fallback path only */
	bool in_hw;           /* the running attempt is a hardware transaction */
} rtm_thread_t;

/* Explicit abort codes (_xabort takes 8 bits). */
#define RTM_CODE_LOCKED  0xff   /* the fallback lock was held at begin */
#define RTM_CODE_CANCEL  0x02   /* tm_cancel */

static struct {
	uint32_t lock POTM_ALIGNED;   /* fallback lock: 0 free, 1 held */
	unsigned retries;
	bool fallback_only;           /* POTM_HTM_FALLBACK_ONLY: tests on CPUs without RTM */
} rtm;

static inline bool rtm_locked(void)
{
	return __atomic_load_n(&rtm.lock, __ATOMIC_ACQUIRE) != 0;
}

static void rtm_wait_unlocked(void)
{
	unsigned spins = 0;
	while (rtm_locked()) {
		potm_cpu_relax();
		if (++spins > 1024)
			sched_yield();
	}
}

static void rtm_lock(void)
{
	unsigned spins = 0;
	for (;;) {
		if (!rtm_locked() &&
		    __atomic_exchange_n(&rtm.lock, 1, __ATOMIC_ACQUIRE) == 0)
			return;
		potm_cpu_relax();
		if (++spins > 1024)
			sched_yield();
	}
}

static void rtm_unlock(void)
{
	__atomic_store_n(&rtm.lock, 0, __ATOMIC_RELEASE);
}

/* Enter the fallback path: serial, in place, with an undo log. */
static void rtm_enter_fallback(rtm_thread_t *r)
{
	rtm_lock();
	r->in_hw = false;
	r->th.txd.flags |= TM_TXD_UNDO;
	POTM_STAT_INC(&r->th, htm_fallbacks);
}

/* Start the attempt: hardware transactions first, then the fallback.  (The
 * allocation and free logs need no reset after an abort: the hardware
 * undid their stores too.) */
static int rtm_attempt(rtm_thread_t *r)
{
	if (rtm.fallback_only) {
		rtm_enter_fallback(r);
		return 1;
	}
	for (unsigned attempt = 0; attempt < rtm.retries; attempt++) {
		rtm_wait_unlocked();
		POTM_STAT_INC(&r->th, htm_starts);
		unsigned status = _xbegin();
		if (status == _XBEGIN_STARTED) {
			if (rtm_locked())
				_xabort(RTM_CODE_LOCKED);
			r->in_hw = true;
			return 1;
		}
		/* Here after an abort: every store of the attempt is undone. */
		struct rtm_decision d = rtm_decide(status);
		if (d.explicit_code == RTM_CODE_CANCEL) {
			/* Cancelled: nothing to undo; resume at TM_BEGIN, which
			 * skips the body. */
			potm_tx_cancelled(&r->th);
		}
		POTM_STAT_INC(&r->th, aborts);
		POTM_STAT_INC(&r->th, aborts_by_cause[d.cause]);
		if (d.explicit_code == RTM_CODE_LOCKED)
			continue;      /* not the transaction's fault: wait and retry */
		if (d.persistent) {
			POTM_STAT_INC(&r->th, htm_persistent);
			break;
		}
	}
	rtm_enter_fallback(r);
	return 1;
}

int tm_tx_start_(tm_txd_t *d)
{
	rtm_thread_t *r = (rtm_thread_t *)d;
	switch (potm_tx_enter(&r->th)) {
	case POTM_ENTER_SKIP:
		return 0;
	case POTM_ENTER_NESTED:
		return 1;
	case POTM_ENTER_NEW:
		break;
	}
	return rtm_attempt(r);
}

void tm_tx_end_(tm_txd_t *d)
{
	rtm_thread_t *r = (rtm_thread_t *)d;
	if (--d->depth > 0)
		return;
	d->depth = 1;
	if (r->in_hw) {
		_xend();
		r->in_hw = false;
		POTM_STAT_INC(&r->th, htm_commits);
		potm_tx_committed(&r->th, false);
		return;
	}
	bool ro = r->undo.n == 0;
	r->undo.n = 0;
	d->flags &= ~TM_TXD_UNDO;
	rtm_unlock();
	potm_tx_committed(&r->th, ro);
}

/* Leave the fallback path after an explicit abort: undo, unlock. */
static rtm_thread_t *rtm_fallback_rollback(rtm_thread_t *r)
{
	potm_undo_rollback(&r->undo);
	r->th.txd.flags &= ~TM_TXD_UNDO;
	rtm_unlock();
	return r;
}

void tm_restart(void)
{
	rtm_thread_t *r = (rtm_thread_t *)potm_self_in_tx("tm_restart");
	if (r->in_hw)
		_xabort(RTM_CODE_RESTART);
	potm_tx_aborted(&rtm_fallback_rollback(r)->th, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	rtm_thread_t *r = (rtm_thread_t *)potm_self_in_tx("tm_cancel");
	if (r->in_hw)
		_xabort(RTM_CODE_CANCEL);
	potm_tx_cancelled(&rtm_fallback_rollback(r)->th);
}

/* Out-of-line accesses, for programs compiled without POTM_BACKEND_RTM. */
tm_word_t tm_read(const tm_word_t *a)
{
	potm_self_in_tx("tm_read");
	return *a;
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	rtm_thread_t *r = (rtm_thread_t *)potm_self_in_tx("tm_write");
	if (r->th.txd.flags & TM_TXD_UNDO)
		potm_undo_log(&r->undo, a, sizeof *a);
	*a = v;
}

void tm_undo_log_(void *a, unsigned size)
{
	rtm_thread_t *r = (rtm_thread_t *)potm_self();
	potm_undo_log(&r->undo, a, size);
}

static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	potm_self_in_tx("tm_read");
	uint64_t b = 0;
	memcpy(&b, a, size);
	return b;
}

static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	rtm_thread_t *r = (rtm_thread_t *)potm_self_in_tx("tm_write");
	if (r->th.txd.flags & TM_TXD_UNDO)
		potm_undo_log(&r->undo, a, size);
	memcpy(a, &b, size);
}

#include "access_gen.h"

/* ---- detection ----------------------------------------------------------- */

/* CPUID says RTM; a probe checks that transactions can commit at all
 * (microcode updates disable TSX by making every transaction abort). */
static bool rtm_probe_commits(void)
{
	for (int i = 0; i < 64; i++) {
		if (_xbegin() == _XBEGIN_STARTED) {
			_xend();
			return true;
		}
	}
	return false;
}

static int rtm_init(const tm_config_t *cfg)
{
	rtm.lock = 0;
	rtm.retries = cfg->htm_retries;
	rtm.fallback_only = cfg->htm_fallback_only;
	if (rtm.fallback_only) {
		fprintf(stderr, "potm: rtm: POTM_HTM_FALLBACK_ONLY=1: every transaction "
		        "runs on the software fallback lock, none in hardware\n");
		return 0;
	}
	if (!potm_cpu_has_rtm())
		return potm_unsupported("rtm: this CPU has no Intel RTM "
		                        "(CPUID.(EAX=7,ECX=0):EBX bit 11 is 0); use tl2, or "
		                        "POTM_HTM_FALLBACK_ONLY=1 to test the fallback path");
	if (!rtm_probe_commits())
		return potm_unsupported("rtm: the CPU reports RTM but no hardware "
		                        "transaction commits (TSX disabled by microcode?)");
	return 0;
}

static void rtm_thread_fini(potm_thread_t *t)
{
	potm_undo_free(&((rtm_thread_t *)t)->undo);
}

const potm_backend_t potm_backend = {
	.name = "rtm",
	.thread_size = sizeof(rtm_thread_t),
	.init = rtm_init,
	.thread_fini = rtm_thread_fini,
};
