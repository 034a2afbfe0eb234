/*
 * decoder.h — intruder's flow reassembly, shared by all threads: a map
 * from flow id to the sorted list of the fragments received so far, and a
 * queue of completely reassembled flows.
 */
#ifndef INTRUDER_DECODER_H
#define INTRUDER_DECODER_H 1

#include "error.h"
#include "map.h"
#include "packet.h"
#include "queue.h"
#include "tm.h"

typedef struct decoded {
	long flowId;
	char *data;          /* NUL-terminated; the receiver frees it */
} decoded_t;

typedef struct decoder {
	MAP_T *fragmentedMapPtr;    /* flow id -> list_t of packet_t */
	queue_t *decodedQueuePtr;   /* decoded_t */
} decoder_t;

decoder_t *decoder_alloc(void);
void decoder_free(decoder_t *decoderPtr);

/* Add one packet; when it completes its flow, queue the flow's data.  A
 * malformed packet or flow is an error (and its partial flow is
 * dropped). */
intruder_error_t TMdecoder_process(TM_ARGDECL decoder_t *decoderPtr, packet_t *packetPtr);

/* A reassembled flow's data (and its id in *flowIdPtr), or NULL if none
 * is waiting. */
char *TMdecoder_getComplete(TM_ARGDECL decoder_t *decoderPtr, long *flowIdPtr);

#define TMDECODER_PROCESS(d, p)        TMdecoder_process(TM_ARG (d), (p))
#define TMDECODER_GETCOMPLETE(d, f)    TMdecoder_getComplete(TM_ARG (d), (f))

#endif /* INTRUDER_DECODER_H */
