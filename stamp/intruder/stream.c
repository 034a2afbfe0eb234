/*
 * stream.c — see stream.h.  The random draws follow STAMP's order, so a
 * seed gives STAMP's stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "stream.h"

static void outOfMemory(void)
{
	fprintf(stderr, "intruder: out of memory\n");
	exit(1);
}

long packet_compareFragmentId(const void *aPtr, const void *bPtr)
{
	const packet_t *a = aPtr, *b = bPtr;
	return (a->fragmentId > b->fragmentId) - (a->fragmentId < b->fragmentId);
}

stream_t *stream_alloc(long percentAttack)
{
	stream_t *s = calloc(1, sizeof *s);
	if (s == NULL)
		outOfMemory();
	s->percentAttack = percentAttack;
	s->randomPtr = random_alloc();
	s->packetsPtr = vector_alloc(1);
	s->packetQueuePtr = queue_alloc(1);
	s->attackMapPtr = MAP_ALLOC(NULL, NULL);
	if (s->randomPtr == NULL || s->packetsPtr == NULL || s->packetQueuePtr == NULL ||
	    s->attackMapPtr == NULL)
		outOfMemory();
	return s;
}

void stream_free(stream_t *s)
{
	for (long i = 0; i < vector_getSize(s->packetsPtr); i++)
		free(vector_at(s->packetsPtr, i));
	vector_free(s->packetsPtr);
	queue_free(s->packetQueuePtr);
	MAP_FREE(s->attackMapPtr);
	for (long f = 1; f <= s->numFlow; f++)
		free(s->flowStrings[f]);
	free(s->flowStrings);
	random_free(s->randomPtr);
	free(s);
}

static long draw(stream_t *s, long range)
{
	return (long)(random_generate(s->randomPtr) % (unsigned long)range);
}

/* Cut str into 1..strlen(str) packets of equal length, the last one also
 * taking the remainder. */
static void splitIntoPackets(stream_t *s, long flowId, const char *str)
{
	long length = (long)strlen(str);
	long numPacket = draw(s, length) + 1;
	long chunk = length / numPacket;
	for (long p = 0; p < numPacket; p++) {
		long n = p < numPacket - 1 ? chunk : chunk + length % numPacket;
		packet_t *packet = malloc(sizeof *packet + n);
		if (packet == NULL)
			outOfMemory();
		packet->flowId = flowId;
		packet->fragmentId = p;
		packet->numFragment = numPacket;
		packet->length = n;
		memcpy(packet->data, str + p * chunk, n);
		if (!vector_pushBack(s->packetsPtr, packet) ||
		    !queue_push(s->packetQueuePtr, packet))
			outOfMemory();
	}
}

long stream_generate(stream_t *s, long numFlow, long seed, long maxLength)
{
	random_seed(s->randomPtr, (unsigned long)seed);
	s->numFlow = numFlow;
	s->flowStrings = calloc(numFlow + 1, sizeof *s->flowStrings);
	char *copy = malloc(maxLength + 1);
	if (s->flowStrings == NULL || copy == NULL)
		outOfMemory();
	long numAttack = 0;
	for (long f = 1; f <= numFlow; f++) {
		char *str;
		bool_t isAttack = FALSE;
		if (draw(s, 100) < s->percentAttack) {
			str = strdup(dictionary[draw(s, DICTIONARY_SIZE)]);
			isAttack = TRUE;
		} else {
			long length = draw(s, maxLength) + 1;
			str = malloc(length + 1);
			if (str == NULL)
				outOfMemory();
			for (long i = 0; i < length; i++)
				str[i] = (char)(' ' + draw(s, 95));   /* printable ASCII */
			str[length] = '\0';
			memcpy(copy, str, length + 1);
			isAttack = detector_process(copy) == ERROR_SIGNATURE;
		}
		if (str == NULL)
			outOfMemory();
		s->flowStrings[f] = str;
		if (isAttack) {
			MAP_INSERT(s->attackMapPtr, f, str);
			numAttack++;
		}
		splitIntoPackets(s, f, str);
	}
	free(copy);
	queue_shuffle(s->packetQueuePtr, s->randomPtr);
	return numAttack;
}

packet_t *TMstream_getPacket(TM_ARGDECL stream_t *s)
{
	return TMQUEUE_POP(s->packetQueuePtr);
}

bool_t stream_isAttack(stream_t *s, long flowId)
{
	return MAP_CONTAINS(s->attackMapPtr, flowId);
}
