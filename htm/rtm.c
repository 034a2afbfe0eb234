/*
 * htm/rtm.c — Intel RTM (Restricted Transactional Memory) with a global-lock
 * fallback: the primitives and the abort-status decoding are rtm_prims.h's,
 * the protocol is htm_gl.h's.
 */
#include "potm_internal.h"

#define HTM_NAME "rtm"
#include "rtm_prims.h"
#include "htm_gl.h"
