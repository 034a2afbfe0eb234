/*
 * queue.h — circular FIFO of pointers of the STAMP interface.
 *
 * The elements sit in the slots after `pop` up to (not including) `push`;
 * the slot at `pop` is always free, so the queue is empty exactly when
 * pop + 1 == push (mod capacity).  A push into a full queue doubles the
 * array.  TMqueue_* access every field transactionally: all pushers and
 * poppers of one queue conflict on its indices.
 */
#ifndef QUEUE_H
#define QUEUE_H 1

#include "random.h"
#include "tm.h"
#include "types.h"

typedef struct queue {
	long pop;        /* slot before the first element */
	long push;       /* slot for the next element */
	long capacity;
	void **elements;
} queue_t;

queue_t *queue_alloc(long initCapacity);
queue_t *TMqueue_alloc(TM_ARGDECL long initCapacity);
void queue_free(queue_t *queuePtr);
void TMqueue_free(TM_ARGDECL queue_t *queuePtr);

bool_t queue_isEmpty(queue_t *queuePtr);
bool_t TMqueue_isEmpty(TM_ARGDECL queue_t *queuePtr);
long queue_getSize(queue_t *queuePtr);
void queue_clear(queue_t *queuePtr);

bool_t queue_push(queue_t *queuePtr, void *dataPtr);
bool_t TMqueue_push(TM_ARGDECL queue_t *queuePtr, void *dataPtr);
/* The oldest element, or NULL if the queue is empty. */
void *queue_pop(queue_t *queuePtr);
void *TMqueue_pop(TM_ARGDECL queue_t *queuePtr);

/* As many random swaps as there are elements, each of the elements at two
 * positions drawn from randomPtr (two draws per swap). */
void queue_shuffle(queue_t *queuePtr, random_t *randomPtr);

#define Pqueue_alloc(n)            queue_alloc(n)
#define Pqueue_free(q)             queue_free(q)
#define Pqueue_push(q, d)          queue_push((q), (d))
#define Pqueue_pop(q)              queue_pop(q)

#define PQUEUE_ALLOC(n)            Pqueue_alloc(n)
#define PQUEUE_FREE(q)             Pqueue_free(q)
#define PQUEUE_ISEMPTY(q)          queue_isEmpty(q)
#define PQUEUE_CLEAR(q)            queue_clear(q)
#define PQUEUE_PUSH(q, d)          Pqueue_push((q), (d))
#define PQUEUE_POP(q)              Pqueue_pop(q)

#define TMQUEUE_ALLOC(n)           TMqueue_alloc(TM_ARG (n))
#define TMQUEUE_FREE(q)            TMqueue_free(TM_ARG (q))
#define TMQUEUE_ISEMPTY(q)         TMqueue_isEmpty(TM_ARG (q))
#define TMQUEUE_PUSH(q, d)         TMqueue_push(TM_ARG (q), (d))
#define TMQUEUE_POP(q)             TMqueue_pop(TM_ARG (q))

#endif /* QUEUE_H */
