/*
 * error.h — what intruder's decoder and detector can report.
 */
#ifndef INTRUDER_ERROR_H
#define INTRUDER_ERROR_H 1

typedef enum intruder_error {
	ERROR_NONE = 0,
	ERROR_FLOWID,        /* negative flow id */
	ERROR_FRAGMENTID,    /* fragment id outside 0..numFragment-1 */
	ERROR_LENGTH,        /* negative length */
	ERROR_NUMFRAGMENT,   /* fragments disagree on the flow's fragment count */
	ERROR_INCOMPLETE,    /* a full flow whose fragment ids are not 0..n-1 */
	ERROR_SIGNATURE,     /* the detector found an attack signature */
} intruder_error_t;

#endif /* INTRUDER_ERROR_H */
