/*
 * utility.h — small arithmetic helpers of the STAMP interface.
 */
#ifndef UTILITY_H
#define UTILITY_H 1

#define MAX(a, b) (((a) > (b)) ? (a) : (b))
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define DIVIDE_AND_ROUND_UP(a, b) (((a) + (b) - 1) / (b))

#endif /* UTILITY_H */
