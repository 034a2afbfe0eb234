/*
 * detector.c — see detector.h.
 */
#include <ctype.h>
#include <string.h>

#include "detector.h"

const char *const dictionary[DICTIONARY_SIZE] = {
	"about", "after", "all", "also", "and", "any", "back", "because", "but",
	"can", "come", "could", "day", "even", "first", "for", "from", "get",
	"give", "good", "have", "him", "how", "into", "its", "just", "know",
	"like", "look", "make", "most", "new", "not", "now", "one", "only",
	"other", "out", "over", "people", "say", "see", "she", "some", "take",
	"than", "that", "their", "them", "then", "there", "these", "they",
	"think", "this", "time", "two", "use", "want", "way", "well", "what",
	"when", "which", "who", "will", "with", "work", "would", "year", "your",
};

intruder_error_t detector_process(char *data)
{
	for (char *c = data; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (int i = 0; i < DICTIONARY_SIZE; i++)
		if (strstr(data, dictionary[i]) != NULL)
			return ERROR_SIGNATURE;
	return ERROR_NONE;
}
