/*
 * stream.h — intruder's input: flows of random printable text, some of
 * them attacks (a dictionary word), cut into packets and shuffled.
 */
#ifndef INTRUDER_STREAM_H
#define INTRUDER_STREAM_H 1

#include "map.h"
#include "packet.h"
#include "queue.h"
#include "random.h"
#include "vector.h"

typedef struct stream {
	long percentAttack;
	random_t *randomPtr;
	vector_t *packetsPtr;     /* every packet, for freeing */
	queue_t *packetQueuePtr;  /* the packets in arrival order */
	MAP_T *attackMapPtr;      /* flow id -> its string, for attacks */
	char **flowStrings;       /* [1..numFlow]: each flow's original data */
	long numFlow;
} stream_t;

stream_t *stream_alloc(long percentAttack);
void stream_free(stream_t *streamPtr);

/* Generate numFlow flows (ids 1..numFlow) of at most maxLength bytes from
 * seed; returns the number of attacks (chosen signatures plus random
 * strings that happen to contain one). */
long stream_generate(stream_t *streamPtr, long numFlow, long seed, long maxLength);

/* The next packet, or NULL when the stream is exhausted. */
packet_t *TMstream_getPacket(TM_ARGDECL stream_t *streamPtr);

/* TRUE if flowId was generated as an attack. */
bool_t stream_isAttack(stream_t *streamPtr, long flowId);

#define TMSTREAM_GETPACKET(s)   TMstream_getPacket(TM_ARG (s))

#endif /* INTRUDER_STREAM_H */
