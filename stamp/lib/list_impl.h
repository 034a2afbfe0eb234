/*
 * list_impl.h — the list algorithms, written once and compiled twice by
 * list.c: plainly and transactionally.  The includer defines
 *   LIST_FN(name)                   the function's name in this flavour
 *   LIST_ARGDECL, LIST_ARG          the descriptor parameter, if any
 *   LIST_LOAD_NEXT(n), LIST_STORE_NEXT(n, v), LIST_LOAD_SIZE(l),
 *   LIST_STORE_SIZE(l, v)           accesses to the shared fields
 *   LIST_NODE_MALLOC(n), LIST_NODE_FREE(p)
 * A node is initialized with plain stores before it is linked in: nobody
 * else can see it yet.
 */

/* The node after which dataPtr belongs: the last node whose element
 * compares smaller (the sentinel if none does). */
static list_node_t *LIST_FN(findPrevious)(LIST_ARGDECL list_t *listPtr, void *dataPtr)
{
	list_node_t *prevPtr = &listPtr->head;
	list_node_t *nodePtr = LIST_LOAD_NEXT(prevPtr);
	while (nodePtr != NULL && listPtr->compare(nodePtr->dataPtr, dataPtr) < 0) {
		prevPtr = nodePtr;
		nodePtr = LIST_LOAD_NEXT(nodePtr);
	}
	return prevPtr;
}

bool_t LIST_FN(isEmpty)(LIST_ARGDECL list_t *listPtr)
{
	return LIST_LOAD_NEXT(&listPtr->head) == NULL;
}

long LIST_FN(getSize)(LIST_ARGDECL list_t *listPtr)
{
	return LIST_LOAD_SIZE(listPtr);
}

void *LIST_FN(find)(LIST_ARGDECL list_t *listPtr, void *dataPtr)
{
	list_node_t *prevPtr = LIST_FN(findPrevious)(LIST_ARG listPtr, dataPtr);
	list_node_t *nodePtr = LIST_LOAD_NEXT(prevPtr);
	if (nodePtr == NULL || listPtr->compare(nodePtr->dataPtr, dataPtr) != 0)
		return NULL;
	return nodePtr->dataPtr;
}

bool_t LIST_FN(insert)(LIST_ARGDECL list_t *listPtr, void *dataPtr)
{
	list_node_t *prevPtr = LIST_FN(findPrevious)(LIST_ARG listPtr, dataPtr);
	list_node_t *currPtr = LIST_LOAD_NEXT(prevPtr);
#ifdef LIST_NO_DUPLICATES
	if (currPtr != NULL && listPtr->compare(currPtr->dataPtr, dataPtr) == 0)
		return FALSE;
#endif
	list_node_t *nodePtr = LIST_NODE_MALLOC(sizeof *nodePtr);
	if (nodePtr == NULL)
		return FALSE;
	nodePtr->dataPtr = dataPtr;
	nodePtr->nextPtr = currPtr;
	LIST_STORE_NEXT(prevPtr, nodePtr);
	LIST_STORE_SIZE(listPtr, LIST_LOAD_SIZE(listPtr) + 1);
	return TRUE;
}

bool_t LIST_FN(remove)(LIST_ARGDECL list_t *listPtr, void *dataPtr)
{
	list_node_t *prevPtr = LIST_FN(findPrevious)(LIST_ARG listPtr, dataPtr);
	list_node_t *nodePtr = LIST_LOAD_NEXT(prevPtr);
	if (nodePtr == NULL || listPtr->compare(nodePtr->dataPtr, dataPtr) != 0)
		return FALSE;
	LIST_STORE_NEXT(prevPtr, LIST_LOAD_NEXT(nodePtr));
	/* Unlinked nodes point nowhere, so a stale iterator stops. */
	LIST_STORE_NEXT(nodePtr, (list_node_t *)NULL);
	LIST_NODE_FREE(nodePtr);
	LIST_STORE_SIZE(listPtr, LIST_LOAD_SIZE(listPtr) - 1);
	return TRUE;
}

/* Frees the nodes and the list itself. */
void LIST_FN(free)(LIST_ARGDECL list_t *listPtr)
{
	list_node_t *nodePtr = LIST_LOAD_NEXT(&listPtr->head);
	while (nodePtr != NULL) {
		list_node_t *nextPtr = LIST_LOAD_NEXT(nodePtr);
		LIST_NODE_FREE(nodePtr);
		nodePtr = nextPtr;
	}
	LIST_NODE_FREE(listPtr);
}
