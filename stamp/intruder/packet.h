/*
 * packet.h — one fragment of a flow as it arrives at intruder's decoder.
 * Packets never change after the stream is generated, so the decoder reads
 * them without transactional barriers.
 */
#ifndef INTRUDER_PACKET_H
#define INTRUDER_PACKET_H 1

typedef struct packet {
	long flowId;
	long fragmentId;    /* 0..numFragment-1 */
	long numFragment;
	long length;        /* bytes of data */
	char data[];
} packet_t;

/* Orders the fragments of one flow. */
long packet_compareFragmentId(const void *aPtr, const void *bPtr);

#endif /* INTRUDER_PACKET_H */
