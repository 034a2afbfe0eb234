/*
 * decoder.c — see decoder.h.  A single-fragment flow bypasses the map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "list.h"

decoder_t *decoder_alloc(void)
{
	decoder_t *d = malloc(sizeof *d);
	if (d == NULL)
		return NULL;
	d->fragmentedMapPtr = MAP_ALLOC(NULL, NULL);
	d->decodedQueuePtr = queue_alloc(1024);
	if (d->fragmentedMapPtr == NULL || d->decodedQueuePtr == NULL)
		return NULL;
	return d;
}

void decoder_free(decoder_t *d)
{
	MAP_FREE(d->fragmentedMapPtr);
	queue_free(d->decodedQueuePtr);
	free(d);
}

/* Queue a reassembled flow. */
static void TMdecoder_deliver(TM_ARGDECL decoder_t *d, long flowId, char *data)
{
	decoded_t *decoded = TM_MALLOC(sizeof *decoded);
	if (decoded == NULL) {
		fprintf(stderr, "intruder: out of memory\n");
		exit(1);
	}
	decoded->flowId = flowId;
	decoded->data = data;
	TMQUEUE_PUSH(d->decodedQueuePtr, decoded);
}

/* The fragments of a complete flow: their ids must be 0..n-1; their data,
 * concatenated, is the flow's. */
static intruder_error_t TMdecoder_reassemble(TM_ARGDECL decoder_t *d, long flowId,
                                             list_t *fragments)
{
	long numByte = 0;
	long expectedId = 0;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, fragments);
	while (TMLIST_ITER_HASNEXT(&it, fragments)) {
		packet_t *fragment = TMLIST_ITER_NEXT(&it, fragments);
		if (fragment->fragmentId != expectedId) {
			TMMAP_REMOVE(d->fragmentedMapPtr, flowId);
			return ERROR_INCOMPLETE;
		}
		numByte += fragment->length;
		expectedId++;
	}
	char *data = TM_MALLOC(numByte + 1);
	if (data == NULL) {
		fprintf(stderr, "intruder: out of memory\n");
		exit(1);
	}
	long offset = 0;
	TMLIST_ITER_RESET(&it, fragments);
	while (TMLIST_ITER_HASNEXT(&it, fragments)) {
		packet_t *fragment = TMLIST_ITER_NEXT(&it, fragments);
		memcpy(data + offset, fragment->data, fragment->length);
		offset += fragment->length;
	}
	data[numByte] = '\0';
	TMdecoder_deliver(TM_ARG d, flowId, data);
	TMLIST_FREE(fragments);
	TMMAP_REMOVE(d->fragmentedMapPtr, flowId);
	return ERROR_NONE;
}

intruder_error_t TMdecoder_process(TM_ARGDECL decoder_t *d, packet_t *packet)
{
	long flowId = packet->flowId;
	long numFragment = packet->numFragment;
	if (flowId < 0)
		return ERROR_FLOWID;
	if (packet->fragmentId < 0 || packet->fragmentId >= numFragment)
		return ERROR_FRAGMENTID;
	if (packet->length < 0)
		return ERROR_LENGTH;

	if (numFragment == 1) {
		char *data = TM_MALLOC(packet->length + 1);
		if (data == NULL) {
			fprintf(stderr, "intruder: out of memory\n");
			exit(1);
		}
		memcpy(data, packet->data, packet->length);
		data[packet->length] = '\0';
		TMdecoder_deliver(TM_ARG d, flowId, data);
		return ERROR_NONE;
	}

	list_t *fragments = TMMAP_FIND(d->fragmentedMapPtr, flowId);
	if (fragments == NULL) {
		fragments = TMLIST_ALLOC(packet_compareFragmentId);
		if (fragments == NULL) {
			fprintf(stderr, "intruder: out of memory\n");
			exit(1);
		}
		TMLIST_INSERT(fragments, packet);
		if (!TMMAP_INSERT(d->fragmentedMapPtr, flowId, fragments))
			TM_RESTART();   /* the lookup said it was absent */
		return ERROR_NONE;
	}

	list_iter_t it;
	TMLIST_ITER_RESET(&it, fragments);
	packet_t *first = TMLIST_ITER_NEXT(&it, fragments);
	if (first->numFragment != numFragment) {
		TMMAP_REMOVE(d->fragmentedMapPtr, flowId);
		return ERROR_NUMFRAGMENT;
	}
	TMLIST_INSERT(fragments, packet);
	if ((long)TMLIST_GETSIZE(fragments) == numFragment)
		return TMdecoder_reassemble(TM_ARG d, flowId, fragments);
	return ERROR_NONE;
}

char *TMdecoder_getComplete(TM_ARGDECL decoder_t *d, long *flowIdPtr)
{
	decoded_t *decoded = TMQUEUE_POP(d->decodedQueuePtr);
	if (decoded == NULL)
		return NULL;
	TM_LOCAL_WRITE(*flowIdPtr, decoded->flowId);   /* rolled back on abort */
	char *data = decoded->data;
	TM_FREE(decoded);
	return data;
}
