/*
 * queue_impl.h — the queue operations, compiled plainly and
 * transactionally by queue.c.  The includer defines
 *   QUEUE_FN(name), QUEUE_ARGDECL, QUEUE_ARG
 *   QUEUE_LOAD(f), QUEUE_STORE(f, v)        long fields
 *   QUEUE_LOAD_P(f), QUEUE_STORE_P(f, v)    pointer fields and slots
 *   QUEUE_MALLOC(n), QUEUE_FREE(p)
 */

bool_t QUEUE_FN(isEmpty)(QUEUE_ARGDECL queue_t *q)
{
	long pop = QUEUE_LOAD(q->pop);
	long push = QUEUE_LOAD(q->push);
	long capacity = QUEUE_LOAD(q->capacity);
	return (pop + 1) % capacity == push;
}

/* Double the array, moving the elements to slots 1..n. */
static bool_t QUEUE_FN(grow)(QUEUE_ARGDECL queue_t *q, long pop, long push, long capacity)
{
	long newCapacity = 2 * capacity;
	void **oldElements = QUEUE_LOAD_P(q->elements);
	void **newElements = QUEUE_MALLOC(newCapacity * sizeof *newElements);
	if (newElements == NULL)
		return FALSE;
	long n = 0;
	for (long i = (pop + 1) % capacity; i != push; i = (i + 1) % capacity)
		newElements[++n] = QUEUE_LOAD_P(oldElements[i]);
	QUEUE_FREE(oldElements);
	QUEUE_STORE_P(q->elements, newElements);
	QUEUE_STORE(q->pop, 0);
	QUEUE_STORE(q->push, n + 1);
	QUEUE_STORE(q->capacity, newCapacity);
	return TRUE;
}

bool_t QUEUE_FN(push)(QUEUE_ARGDECL queue_t *q, void *dataPtr)
{
	long pop = QUEUE_LOAD(q->pop);
	long push = QUEUE_LOAD(q->push);
	long capacity = QUEUE_LOAD(q->capacity);
	if (push == pop) {   /* full: the next slot is the reserved one */
		if (!QUEUE_FN(grow)(QUEUE_ARG q, pop, push, capacity))
			return FALSE;
		push = QUEUE_LOAD(q->push);
		capacity = QUEUE_LOAD(q->capacity);
	}
	void **elements = QUEUE_LOAD_P(q->elements);
	QUEUE_STORE_P(elements[push], dataPtr);
	QUEUE_STORE(q->push, (push + 1) % capacity);
	return TRUE;
}

void *QUEUE_FN(pop)(QUEUE_ARGDECL queue_t *q)
{
	long pop = QUEUE_LOAD(q->pop);
	long push = QUEUE_LOAD(q->push);
	long capacity = QUEUE_LOAD(q->capacity);
	long first = (pop + 1) % capacity;
	if (first == push)
		return NULL;
	void **elements = QUEUE_LOAD_P(q->elements);
	void *dataPtr = QUEUE_LOAD_P(elements[first]);
	QUEUE_STORE(q->pop, first);
	return dataPtr;
}

void QUEUE_FN(free)(QUEUE_ARGDECL queue_t *q)
{
	QUEUE_FREE(QUEUE_LOAD_P(q->elements));
	QUEUE_FREE(q);
}
