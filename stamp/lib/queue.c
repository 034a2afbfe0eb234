/*
 * queue.c — circular FIFO (see queue.h).
 */
#include <stdlib.h>

#include "queue.h"

#define QUEUE_FN(name)            queue_##name
#define QUEUE_ARGDECL             /* none */
#define QUEUE_ARG                 /* none */
#define QUEUE_LOAD(f)             (f)
#define QUEUE_STORE(f, v)         ((f) = (v))
#define QUEUE_LOAD_P(f)           (f)
#define QUEUE_STORE_P(f, v)       ((f) = (v))
#define QUEUE_MALLOC(n)           malloc(n)
#define QUEUE_FREE(p)             free(p)
#include "queue_impl.h"
#undef QUEUE_FN
#undef QUEUE_ARGDECL
#undef QUEUE_ARG
#undef QUEUE_LOAD
#undef QUEUE_STORE
#undef QUEUE_LOAD_P
#undef QUEUE_STORE_P
#undef QUEUE_MALLOC
#undef QUEUE_FREE

#define QUEUE_FN(name)            TMqueue_##name
#define QUEUE_ARGDECL             TM_ARGDECL
#define QUEUE_ARG                 TM_ARG
#define QUEUE_LOAD(f)             ((long)TM_SHARED_READ(f))
#define QUEUE_STORE(f, v)         TM_SHARED_WRITE((f), (v))
#define QUEUE_LOAD_P(f)           TM_SHARED_READ_P(f)
#define QUEUE_STORE_P(f, v)       TM_SHARED_WRITE_P((f), (v))
#define QUEUE_MALLOC(n)           TM_MALLOC(n)
#define QUEUE_FREE(p)             TM_FREE(p)
#include "queue_impl.h"

static queue_t *queue_init(queue_t *q, void **elements, long capacity)
{
	q->elements = elements;
	q->capacity = capacity;
	q->pop = capacity - 1;
	q->push = 0;
	return q;
}

queue_t *queue_alloc(long initCapacity)
{
	/* One slot more than asked for: the reserved slot at pop. */
	long capacity = (initCapacity < 2 ? 2 : initCapacity) + 1;
	queue_t *q = malloc(sizeof *q);
	void **elements = malloc(capacity * sizeof *elements);
	if (q == NULL || elements == NULL) {
		free(q);
		free(elements);
		return NULL;
	}
	return queue_init(q, elements, capacity);
}

queue_t *TMqueue_alloc(TM_ARGDECL long initCapacity)
{
	long capacity = (initCapacity < 2 ? 2 : initCapacity) + 1;
	queue_t *q = TM_MALLOC(sizeof *q);
	void **elements = TM_MALLOC(capacity * sizeof *elements);
	if (q == NULL || elements == NULL) {
		TM_FREE(q);
		TM_FREE(elements);
		return NULL;
	}
	return queue_init(q, elements, capacity);   /* private until published */
}

long queue_getSize(queue_t *q)
{
	return (q->push - q->pop - 1 + q->capacity) % q->capacity;
}

void queue_clear(queue_t *q)
{
	q->pop = q->capacity - 1;
	q->push = 0;
}

void queue_shuffle(queue_t *q, random_t *randomPtr)
{
	long numElement = queue_getSize(q);
	long base = q->pop + 1;
	for (long i = 0; i < numElement; i++) {
		long r1 = (long)(random_generate(randomPtr) % (unsigned long)numElement);
		long r2 = (long)(random_generate(randomPtr) % (unsigned long)numElement);
		long a = (base + r1) % q->capacity;
		long b = (base + r2) % q->capacity;
		void *t = q->elements[a];
		q->elements[a] = q->elements[b];
		q->elements[b] = t;
	}
}
