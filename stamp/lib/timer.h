/*
 * timer.h — wall-clock timing of the STAMP interface.
 *
 * A monotonic clock instead of gettimeofday: a run must not be distorted by
 * clock adjustments.
 */
#ifndef TIMER_H
#define TIMER_H 1

#include <time.h>

#define TIMER_T struct timespec
#define TIMER_READ(t) clock_gettime(CLOCK_MONOTONIC, &(t))
#define TIMER_DIFF_SECONDS(start, stop)                                  \
	((double)((stop).tv_sec - (start).tv_sec) +                      \
	 1e-9 * (double)((stop).tv_nsec - (start).tv_nsec))

#endif /* TIMER_H */
