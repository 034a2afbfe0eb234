/*
 * detector.h — intruder's signature detector: lower-cases a reassembled
 * flow in place and looks for any of the attack dictionary's words in it.
 * Thread-private, no transactions.
 */
#ifndef INTRUDER_DETECTOR_H
#define INTRUDER_DETECTOR_H 1

#include "error.h"

#define DICTIONARY_SIZE 71

/* The attack signatures, in dictionary order. */
extern const char *const dictionary[DICTIONARY_SIZE];

/* ERROR_SIGNATURE if data (modified: lower-cased) holds a signature,
 * ERROR_NONE otherwise. */
intruder_error_t detector_process(char *data);

#endif /* INTRUDER_DETECTOR_H */
