/*
 * potm/durable.h — durability for the record store: a redo log written by
 * a logger thread with group commit, checkpoints, and recovery (after Silo,
 * Tu et al. SOSP 2013, sections 4.9-4.10).
 *
 * Once a log is open on a set of tables, every transaction that changes
 * them leaves a redo record: the table, the key, and the record's bytes as
 * committed (insert), the bytes the transaction wrote in it (update; on
 * seq and in tl2's in-place modes the whole record), or a delete.  Inserts and deletes are known to
 * the store; an update in place (TM_STORE on a record's fields) must be
 * declared with store_update(t, rec) inside the same transaction.  Workers
 * append the records to per-thread buffers at commit; a logger thread
 * writes them every few milliseconds, fdatasync()s, and then advances the
 * durable stamp.  A commit's stamp orders it after every commit it depends
 * on: on silo its TID (epoch and sequence), on tl2 its write version; seq
 * numbers its commits.  A transaction's result may be released to a client
 * once potm_durable_wait(its stamp) returned 0.
 *
 *     store_table_t *tabs[] = { accounts, history };
 *     potm_durable_opts_t o = { .dir = "/var/db/bank" };
 *     potm_durable_t *log = potm_durable_open(&o, tabs, 2);   // checkpoint
 *     TM_BEGIN();
 *         acct_t *a = store_get(accounts, k);
 *         TM_STORE(&a->balance, TM_LOAD(&a->balance) + 10);
 *         store_update(accounts, a);
 *     TM_END();
 *     potm_durable_wait(log, potm_durable_last_stamp());      // durable
 *     potm_durable_close(log);
 *
 * After a crash, potm_durable_recover() fills the same tables (created
 * empty, in the same order) from the last complete checkpoint and the log
 * after it, up to the last durable stamp written: every transaction whose
 * wait returned 0 is there, none after the durable stamp is, none half.
 *
 * The log is a directory of files log.<n>; each starts with a checkpoint
 * (every record of every table, written at open and by
 * potm_durable_checkpoint); a new checkpoint opens a new file and removes
 * the older ones once it is complete.  Backends: silo, tl2, seq (the
 * others get an error from potm_durable_open).  One log per process.
 * A logged transaction must not use LSD's lazy writes (<potm/lsd.h>) on
 * logged records: their values exist only at the commit, after the
 * logged bytes are taken.
 */
#ifndef POTM_DURABLE_H
#define POTM_DURABLE_H

#include <stddef.h>
#include <stdint.h>

#include <potm/store.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct potm_durable potm_durable_t;

typedef struct potm_durable_opts {
	const char *dir;        /* the log's directory; created if missing */
	unsigned period_ms;     /* the logger's period (0: 10 ms) */
	uint64_t max_bytes;     /* bytes the log may grow past its checkpoint
	                           before it counts as full (0: until the file
	                           system is full); for tests of a full disk */
	int quiet;              /* no messages on stderr (recovery's torn
	                           tail, a full log) besides tm_last_error() */
} potm_durable_opts_t;

/* Open a log on tables[0..n-1] (their order is their identity in the log)
 * and write a checkpoint of their contents; start the logger.  Called by
 * a registered thread, outside transactions, while no transaction changes
 * the tables.  NULL with tm_last_error() on a bad argument, an unsupported
 * backend, a log already open, or an I/O error. */
potm_durable_t *potm_durable_open(const potm_durable_opts_t *o, store_table_t *const *tables,
                                  unsigned n);

/* Write everything logged and make it durable, stop the logger, close
 * the files.  No transaction may be running or start meanwhile.  0, or -1
 * (tm_last_error()) if the log had failed (full disk, I/O error). */
int potm_durable_close(potm_durable_t *log);

/* Start a new log file with a checkpoint of the tables, then remove the
 * older files.  Quiescent: no transaction may change the tables meanwhile.
 * 0 or -1 (tm_last_error()). */
int potm_durable_checkpoint(potm_durable_t *log);

/* The stamp of the calling thread's last logged commit (0: none).
 * UINT64_MAX once the log has failed: later commits are not logged, and
 * a wait for this stamp fails. */
uint64_t potm_durable_last_stamp(void);

/* The durable stamp: every logged commit with a stamp up to it is on
 * disk. */
uint64_t potm_durable_stamp(const potm_durable_t *log);

/* Block until stamp is durable: 0, or -1 if the log failed first (full
 * disk, I/O error: tm_last_error() says which; nothing later becomes
 * durable).  Outside transactions. */
int potm_durable_wait(potm_durable_t *log, uint64_t stamp);

/* Non-zero once logging has stopped on an error; its message. */
int potm_durable_failed(const potm_durable_t *log);
const char *potm_durable_error(const potm_durable_t *log);

typedef struct potm_durable_info {
	unsigned file;          /* the log file recovered (log.<file>) */
	uint64_t checkpoint_records;
	uint64_t durable_stamp; /* the last durable stamp found */
	uint64_t transactions;  /* logged transactions applied */
	uint64_t discarded;     /* logged transactions after the durable stamp */
	uint64_t torn_bytes;    /* bytes cut off a torn tail (0: clean) */
} potm_durable_info_t;

/* Rebuild tables[0..n-1] (empty; the tables of the logging run, in the
 * same order) from dir's last complete checkpoint and its log.  A torn
 * tail (a short block, a bad checksum) is reported on stderr (unless
 * quiet), cut off the file, and recovery goes on from what precedes it.
 * Called by a registered thread, with no log open.  0 (info filled if
 * not NULL) or -1 with tm_last_error(). */
int potm_durable_recover(const char *dir, store_table_t *const *tables, unsigned n,
                         int quiet, potm_durable_info_t *info);

#ifdef __cplusplus
}
#endif

#endif /* POTM_DURABLE_H */
