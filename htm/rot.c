/*
 * htm/rot.c — IBM POWER8 HTM (ISA 2.07: tbegin./tend./tabort.) with the
 * global-lock fallback of the thesis's Figure 3.4a: the primitives and the
 * TEXASR decoding are rot_prims.h's, the protocol is htm_gl.h's.
 *
 * Built with a powerpc64le cross GCC (-mcpu=power8 -mhtm) and tested under
 * qemu-user, where tbegin. always fails (persistent, nesting overflow): the
 * fallback and the abort decisions run for real, the hardware commit path
 * does not.
 */
#include "potm_internal.h"

#define HTM_NAME "rot"
#include "rot_prims.h"
#include "htm_gl.h"
