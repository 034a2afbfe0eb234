/*
 * heap_impl.h — heap operations, compiled plainly and transactionally by
 * heap.c.  The includer defines HEAP_FN(name), HEAP_ARGDECL, HEAP_ARG,
 * HEAP_LOAD(f)/HEAP_STORE(f, v) for long fields, HEAP_LOAD_P/HEAP_STORE_P
 * for the array pointer and the slots, HEAP_MALLOC(n)/HEAP_FREE(p).
 */

bool_t HEAP_FN(insert)(HEAP_ARGDECL heap_t *h, void *dataPtr)
{
	long size = HEAP_LOAD(h->size);
	long capacity = HEAP_LOAD(h->capacity);
	void **elements = HEAP_LOAD_P(h->elements);
	if (size + 1 >= capacity) {   /* slot 0 is unused */
		long newCapacity = 2 * capacity;
		void **grown = HEAP_MALLOC(newCapacity * sizeof *grown);
		if (grown == NULL)
			return FALSE;
		for (long i = 1; i <= size; i++)
			grown[i] = HEAP_LOAD_P(elements[i]);
		HEAP_FREE(elements);
		HEAP_STORE_P(h->elements, grown);
		HEAP_STORE(h->capacity, newCapacity);
		elements = grown;
	}
	size++;
	HEAP_STORE(h->size, size);
	/* Sift up: move smaller parents down until dataPtr's place is found. */
	long i = size;
	while (i > 1) {
		long parent = i / 2;
		void *parentPtr = HEAP_LOAD_P(elements[parent]);
		if (h->compare(parentPtr, dataPtr) >= 0)
			break;
		HEAP_STORE_P(elements[i], parentPtr);
		i = parent;
	}
	HEAP_STORE_P(elements[i], dataPtr);
	return TRUE;
}

void *HEAP_FN(remove)(HEAP_ARGDECL heap_t *h)
{
	long size = HEAP_LOAD(h->size);
	if (size < 1)
		return NULL;
	void **elements = HEAP_LOAD_P(h->elements);
	void *topPtr = HEAP_LOAD_P(elements[1]);
	void *lastPtr = HEAP_LOAD_P(elements[size]);
	size--;
	HEAP_STORE(h->size, size);
	if (size == 0)
		return topPtr;
	/* Sift down the former last element from the root. */
	long i = 1;
	for (;;) {
		long child = 2 * i;
		if (child > size)
			break;
		void *childPtr = HEAP_LOAD_P(elements[child]);
		if (child + 1 <= size) {
			void *rightPtr = HEAP_LOAD_P(elements[child + 1]);
			if (h->compare(rightPtr, childPtr) > 0) {
				child++;
				childPtr = rightPtr;
			}
		}
		if (h->compare(childPtr, lastPtr) <= 0)
			break;
		HEAP_STORE_P(elements[i], childPtr);
		i = child;
	}
	HEAP_STORE_P(elements[i], lastPtr);
	return topPtr;
}
