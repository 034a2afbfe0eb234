/*
 * tm.h — drop-in replacement for STAMP 0.9.10's lib/tm.h, for potm.
 *
 * Same names, same argument conventions, same two native flavours:
 *
 *   -DSTM   transactions run on potm, through the TL2-style <stm.h> of this
 *           directory (found with -I$(STM)); every potm backend works, the
 *           one linked through the libtl2 stand-in decides.
 *   none    sequential: no TM at all, plain loads and stores (STAMP's
 *           Makefile.seq flavour; the thread library is still used).
 *
 * STAMP's simulator, HTM and OpenTM flavours (-DSIMULATOR, -DHTM, -DOTM)
 * need tools that are not part of this port and are refused.
 *
 * Differences from the original, all compatible with every application:
 *  - TM_SHARED_* accesses have the size of the variable (int and float are
 *    4-byte accesses, not words that also cover the neighbour);
 *  - TM_LOCAL_WRITE values are rolled back when an attempt aborts;
 *  - TM_PURE, TM_SAFE (later compiler-TM ports) and SEQ_MALLOC/SEQ_FREE are
 *    defined too;
 *  - the thread library this goes with (thread.h/thread.c of this
 *    directory) registers each thread with the TM before a parallel region
 *    and takes any number of threads, not only powers of two.
 */
#ifndef TM_H
#define TM_H 1

#if defined(SIMULATOR) || defined(HTM) || defined(OTM)
#error "potm's STAMP tm.h supports the native STM (-DSTM) and sequential flavours only"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- program structure (the simulator hooks are no-ops natively) ------- */

#define MAIN(argc, argv)               int main(int argc, char **argv)
#define MAIN_RETURN(val)               return val

#define GOTO_SIM()                     /* nothing */
#define GOTO_REAL()                    /* nothing */
#define IS_IN_SIM()                    (0)
#define SIM_GET_NUM_CPU(var)           /* nothing */

#define TM_PRINTF                      printf
#define TM_PRINT0                      printf
#define TM_PRINT1                      printf
#define TM_PRINT2                      printf
#define TM_PRINT3                      printf

#define P_MEMORY_STARTUP(numThread)    /* nothing */
#define P_MEMORY_SHUTDOWN()            /* nothing */

/* Allocation outside transactions: in parallel code (P_) and in sequential
 * code (SEQ_). */
#define P_MALLOC(size)                 malloc(size)
#define P_FREE(ptr)                    free(ptr)
#define SEQ_MALLOC(size)               malloc(size)
#define SEQ_FREE(ptr)                  free(ptr)

/* Function annotations of compiler-based TMs: nothing to do for a library
 * TM. */
#define TM_CALLABLE                    /* nothing */
#define TM_PURE                        /* nothing */
#define TM_SAFE                        /* nothing */

#define TM_EARLY_RELEASE(var)          /* nothing: potm keeps the read set */

#ifdef STM

#include <stm.h>
#include "thread.h"

/* The descriptor parameter.  TM_ARGDECL brings its own trailing comma. */
#define TM_ARG                         STM_SELF,
#define TM_ARG_ALONE                   STM_SELF
#define TM_ARGDECL                     STM_THREAD_T *TM_ARG
#define TM_ARGDECL_ALONE               STM_THREAD_T *TM_ARG_ALONE

#define TM_STARTUP(numThread)          STM_STARTUP()
#define TM_SHUTDOWN()                  STM_SHUTDOWN()
/* potm's addition, before TM_STARTUP: the program's default for Pot's
 * runs of turns (stm_potm_default_turn_batch in stm.h). */
#define TM_DEFAULT_TURN_BATCH(accesses) stm_potm_default_turn_batch(accesses)

/* Declares the descriptor variable; first statement of a parallel
 * function. */
#define TM_THREAD_ENTER()              TM_ARGDECL_ALONE = STM_NEW_THREAD(); \
                                       STM_INIT_THREAD(TM_ARG_ALONE, thread_getId())
#define TM_THREAD_EXIT()               STM_FREE_THREAD(TM_ARG_ALONE)

#define TM_MALLOC(size)                STM_MALLOC(size)
#define TM_FREE(ptr)                   STM_FREE(ptr)

#define TM_BEGIN()                     STM_BEGIN_WR()
/* STAMP's read-only hint stays an ordinary transaction: potm's own
 * TM_BEGIN_RO (a snapshot on silo) is not what these applications were
 * written and checked against. */
#undef TM_BEGIN_RO
#define TM_BEGIN_RO()                  STM_BEGIN_RD()
#define TM_END()                       STM_END()
#define TM_RESTART()                   STM_RESTART()

#define TM_SHARED_READ(var)            STM_READ(var)
#define TM_SHARED_READ_P(var)          STM_READ_P(var)
#define TM_SHARED_READ_F(var)          STM_READ_F(var)

#define TM_SHARED_WRITE(var, val)      STM_WRITE((var), val)
#define TM_SHARED_WRITE_P(var, val)    STM_WRITE_P((var), val)
#define TM_SHARED_WRITE_F(var, val)    STM_WRITE_F((var), val)

#define TM_LOCAL_WRITE(var, val)       STM_LOCAL_WRITE(var, val)
#define TM_LOCAL_WRITE_P(var, val)     STM_LOCAL_WRITE_P(var, val)
#define TM_LOCAL_WRITE_F(var, val)     STM_LOCAL_WRITE_F(var, val)

#else /* sequential */

#include <assert.h>

#define TM_ARG                         /* nothing */
#define TM_ARG_ALONE                   /* nothing */
#define TM_ARGDECL                     /* nothing */
#define TM_ARGDECL_ALONE               /* nothing */

#define TM_STARTUP(numThread)          /* nothing */
#define TM_SHUTDOWN()                  /* nothing */
#define TM_DEFAULT_TURN_BATCH(accesses) /* nothing */
#define TM_THREAD_ENTER()              /* nothing */
#define TM_THREAD_EXIT()               /* nothing */

#define TM_MALLOC(size)                malloc(size)
#define TM_FREE(ptr)                   free(ptr)

#define TM_BEGIN()                     /* nothing */
#define TM_BEGIN_RO()                  /* nothing */
#define TM_END()                       /* nothing */
/* A sequential run has no conflicts, so a restart is a bug (as in STAMP). */
#define TM_RESTART()                   assert(0)

#define TM_SHARED_READ(var)            (var)
#define TM_SHARED_READ_P(var)          (var)
#define TM_SHARED_READ_F(var)          (var)

#define TM_SHARED_WRITE(var, val)      ({ (var) = (val); (var); })
#define TM_SHARED_WRITE_P(var, val)    ({ (var) = (val); (var); })
#define TM_SHARED_WRITE_F(var, val)    ({ (var) = (val); (var); })

#define TM_LOCAL_WRITE(var, val)       ({ (var) = (val); (var); })
#define TM_LOCAL_WRITE_P(var, val)     ({ (var) = (val); (var); })
#define TM_LOCAL_WRITE_F(var, val)     ({ (var) = (val); (var); })

#endif /* STM */

#endif /* TM_H */
