/*
 * lib/registry.c — the runtime: init/shutdown, the thread registry and the
 * statistics that outlive threads.
 *
 * This is the only mutable global state of the core.  It is touched on the
 * slow paths only (init, thread enter/exit, tm_stats); transactions see just
 * their own descriptor through tm_self_.
 */
#include "potm_internal.h"

#include <numa.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>

__thread tm_txd_t *tm_self_ __attribute__((tls_model("initial-exec")));
tm_config_t potm_cfg;

int potm_config_validate(const tm_config_t *cfg);

static struct {
	pthread_mutex_t lock;
	bool initialized;
	bool numa;               /* libnuma usable: allocate node-locally */
	potm_thread_t **threads; /* by logical id, max_threads slots */
	unsigned live;           /* registered threads */
	tm_stats_t exited;       /* totals of threads that have left */
	int *cpus;               /* CPUs we may run on, node 0 first */
	int ncpus;
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t rt_reclaimed; /* atomic; counted by the reclamation thread */

void potm_count_reclaimed(size_t n)
{
	__atomic_fetch_add(&rt_reclaimed, n, __ATOMIC_RELAXED);
}

const char *tm_backend_name(void)
{
	return potm_backend.name;
}

const tm_config_t *tm_current_config(void)
{
	return rt.initialized ? &potm_cfg : NULL;
}

/* The CPUs this process may use, ordered by NUMA node so that pinning
 * fills one node before the next. */
static void rt_collect_cpus(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return;
	rt.cpus = potm_xmalloc(sizeof(int) * CPU_SETSIZE);
	rt.ncpus = 0;
	int maxnode = rt.numa ? numa_max_node() : 0;
	for (int node = 0; node <= maxnode; node++)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set) &&
			    (!rt.numa || numa_node_of_cpu(c) == node || (node == 0 && numa_node_of_cpu(c) < 0)))
				rt.cpus[rt.ncpus++] = c;
}

int tm_init(const tm_config_t *cfg)
{
	tm_config_t c;
	if (cfg)
		c = *cfg;
	else
		tm_config_default(&c);
	pthread_mutex_lock(&rt.lock);
	if (rt.initialized) {
		pthread_mutex_unlock(&rt.lock);
		return potm_error("tm_init called twice: call tm_shutdown() first");
	}
	if (tm_config_from_env(&c) != 0 || potm_config_validate(&c) != 0) {
		pthread_mutex_unlock(&rt.lock);
		return -1;
	}
	potm_cfg = c;
	rt.numa = numa_available() >= 0;
	rt.threads = calloc(c.max_threads, sizeof *rt.threads);
	if (rt.threads == NULL) {
		pthread_mutex_unlock(&rt.lock);
		return potm_error("tm_init: out of memory");
	}
	memset(&rt.exited, 0, sizeof rt.exited);
	__atomic_store_n(&rt_reclaimed, 0, __ATOMIC_RELAXED);
	rt.live = 0;
	potm_membarrier_register();
	potm_ticks_init();
	potm_reclaim_init(c.max_threads);
	rt_collect_cpus();
	int brc = potm_backend.init ? potm_backend.init(&potm_cfg) : 0;
	if (brc != 0) {
		potm_reclaim_shutdown();
		free(rt.threads);
		free(rt.cpus);
		rt.threads = NULL;
		rt.cpus = NULL;
		pthread_mutex_unlock(&rt.lock);
		return brc;   /* -1, or TM_ERR_UNSUPPORTED */
	}
	rt.initialized = true;
	pthread_mutex_unlock(&rt.lock);
	return 0;
}

void tm_shutdown(void)
{
	pthread_mutex_lock(&rt.lock);
	if (!rt.initialized) {
		pthread_mutex_unlock(&rt.lock);
		return;
	}
	if (rt.live != 0)
		potm_fatal("tm_shutdown with %u thread(s) still registered: "
		           "call tm_thread_exit() in each first", rt.live);
	pthread_mutex_unlock(&rt.lock);
	/* Every deferred free must run while the allocator is still ours. */
	urcu_memb_barrier();
	pthread_mutex_lock(&rt.lock);
	if (potm_backend.shutdown)
		potm_backend.shutdown();
	potm_reclaim_shutdown();
	free(rt.threads);
	free(rt.cpus);
	rt.threads = NULL;
	rt.cpus = NULL;
	rt.initialized = false;
	pthread_mutex_unlock(&rt.lock);
}

static int rt_pin(potm_thread_t *t)
{
	t->cpu = -1;
	if (!potm_cfg.pin || rt.ncpus == 0)
		return 0;
	int cpu = rt.cpus[t->id % (unsigned)rt.ncpus];
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
		return potm_error("tm_thread_enter(%u): cannot pin to CPU %d", t->id, cpu);
	t->cpu = cpu;
	return 0;
}

static potm_thread_t *rt_alloc_thread(void)
{
	size_t size = potm_backend.thread_size;
	void *p;
	/* Node-local: the descriptor is written on every access. */
	if (rt.numa)
		p = numa_alloc_local(size);
	else if (posix_memalign(&p, POTM_CACHELINE, size) != 0)
		p = NULL;
	if (p)
		memset(p, 0, size);
	return p;
}

static void rt_free_thread(potm_thread_t *t)
{
	if (rt.numa)
		numa_free(t, potm_backend.thread_size);
	else
		free(t);
}

int tm_thread_enter(unsigned id)
{
	if (tm_self_ != NULL)
		return potm_error("tm_thread_enter(%u): this thread is already "
		                  "registered as %u", id, potm_self()->id);
	pthread_mutex_lock(&rt.lock);
	int rc = -1;
	if (!rt.initialized) {
		potm_error("tm_thread_enter(%u): call tm_init() first", id);
		goto out;
	}
	if (id >= potm_cfg.max_threads) {
		potm_error("tm_thread_enter(%u): id out of range; allowed 0..%u "
		           "(POTM_MAX_THREADS)", id, potm_cfg.max_threads - 1);
		goto out;
	}
	if (rt.threads[id] != NULL) {
		potm_error("tm_thread_enter(%u): id already taken by a live thread", id);
		goto out;
	}
	if (potm_backend.max_threads && rt.live >= potm_backend.max_threads) {
		potm_error("tm_thread_enter(%u): the %s backend runs at most %u "
		           "thread(s) at once", id, potm_backend.name, potm_backend.max_threads);
		goto out;
	}
	potm_thread_t *t = rt_alloc_thread();
	if (t == NULL) {
		potm_error("tm_thread_enter(%u): out of memory", id);
		goto out;
	}
	t->id = id;
	t->rng = 0x9e3779b97f4a7c15ull * (id + 1) ^ (uintptr_t)t;
	/* Attempt numbers never repeat in the process, across registrations
	 * and tm_init cycles (tm_txd_t.attempt_id). */
	static uint64_t registrations;
	t->txd.attempt_id = ++registrations << 32;   /* under rt.lock */
	if (rt_pin(t) != 0 ||
	    (potm_backend.thread_init && potm_backend.thread_init(t) != 0)) {
		rt_free_thread(t);
		goto out;
	}
	potm_reclaim_thread_init(t);
	urcu_memb_register_thread();
	rt.threads[id] = t;
	__atomic_store_n(&rt.live, rt.live + 1, __ATOMIC_RELAXED);
	tm_self_ = &t->txd;
	rc = 0;
out:
	pthread_mutex_unlock(&rt.lock);
	return rc;
}

unsigned potm_live_threads(void)
{
	return __atomic_load_n(&rt.live, __ATOMIC_RELAXED);
}

static void stats_add(tm_stats_t *acc, const tm_stats_t *s)
{
	/* tm_stats_t is all uint64_t counters: add them as an array. */
	uint64_t *a = (uint64_t *)acc;
	const uint64_t *b = (const uint64_t *)s;
	for (size_t i = 0; i < sizeof *s / sizeof(uint64_t); i++)
		a[i] += __atomic_load_n(&b[i], __ATOMIC_RELAXED);
}

void tm_thread_exit(void)
{
	potm_thread_t *t = potm_self();
	if (t == NULL)
		tm_misuse_("tm_thread_exit on a thread that is not registered");
	if (t->txd.depth != 0)
		tm_misuse_("tm_thread_exit inside a transaction");
	if (potm_backend.flush)
		potm_backend.flush(t);
	if (potm_backend.thread_fini)
		potm_backend.thread_fini(t);
	potm_reclaim_thread_exit(t);
	urcu_memb_unregister_thread();
	pthread_mutex_lock(&rt.lock);
	stats_add(&rt.exited, &t->stats);
	rt.threads[t->id] = NULL;
	__atomic_store_n(&rt.live, rt.live - 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rt.lock);
	potm_ptrvec_free(&t->allocs);
	potm_ptrvec_free(&t->frees);
	potm_lsd_free(t);
	tm_self_ = NULL;
	rt_free_thread(t);
}

int tm_stats(tm_stats_t *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&rt.lock);
	if (!rt.initialized) {
		pthread_mutex_unlock(&rt.lock);
		return potm_error("tm_stats: the library is not initialized");
	}
	stats_add(out, &rt.exited);
	for (unsigned i = 0; i < potm_cfg.max_threads; i++)
		if (rt.threads[i])
			stats_add(out, &rt.threads[i]->stats);
	pthread_mutex_unlock(&rt.lock);
	out->reclaimed = __atomic_load_n(&rt_reclaimed, __ATOMIC_RELAXED);
	out->wait_turn_ns = potm_ticks_to_ns(out->wait_turn_ns);   /* kept in ticks */
	return 0;
}

int tm_thread_stats(tm_stats_t *out)
{
	memset(out, 0, sizeof *out);
	potm_thread_t *t = potm_self();
	if (t == NULL)
		return potm_error("tm_thread_stats: this thread is not registered (tm_thread_enter)");
	if (t->txd.depth != 0)
		return potm_error("tm_thread_stats: inside a transaction, whose counts are not final");
	stats_add(out, &t->stats);
	out->wait_turn_ns = potm_ticks_to_ns(out->wait_turn_ns);   /* kept in ticks */
	return 0;
}

void tm_stats_reset(void)
{
	pthread_mutex_lock(&rt.lock);
	if (rt.initialized) {
		memset(&rt.exited, 0, sizeof rt.exited);
		for (unsigned i = 0; i < potm_cfg.max_threads; i++)
			if (rt.threads[i]) {
				uint64_t *a = (uint64_t *)&rt.threads[i]->stats;
				for (size_t k = 0; k < sizeof(tm_stats_t) / sizeof(uint64_t); k++)
					__atomic_store_n(&a[k], 0, __ATOMIC_RELAXED);
			}
		__atomic_store_n(&rt_reclaimed, 0, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&rt.lock);
}
