/*
 * learner.h — bayes' structure learner: greedy hill climbing over edge
 * insertions, removals and reversals, scored by log-likelihood (counts
 * from the AD-tree) plus a penalty per parent.
 *
 * Shared and transactional while learning: the network's parent/child
 * lists, the task list (one slot per target variable, ordered by
 * descending score: its head is every thread's hot spot), each variable's
 * local log-likelihood, the total log-likelihood and the total number of
 * parents.  The AD-tree is read-only and read without barriers.
 */
#ifndef BAYES_LEARNER_H
#define BAYES_LEARNER_H 1

#include "adtree.h"
#include "list.h"
#include "net.h"

typedef struct learner_task {
	operation_t op;
	long fromId;
	long toId;
	float score;
} learner_task_t;

typedef struct learner {
	adtree_t *adtreePtr;
	net_t *netPtr;                    /* learned structure (transactional lists) */
	float *localBaseLogLikelihoods;   /* per variable (transactional) */
	float baseLogLikelihood;          /* transactional */
	learner_task_t *tasks;            /* one slot per target variable */
	list_t *taskListPtr;              /* learner_task_t *, best first (transactional) */
	long numTotalParent;              /* transactional */
	long insertPenalty;               /* -i */
	long maxNumEdgeLearned;           /* -e; < 0: no limit */
	float operationQualityFactor;     /* -q */
	float basePenalty;                /* -0.5 ln(numRecord) */
} learner_t;

learner_t *learner_alloc(adtree_t *adtreePtr, long insertPenalty, long maxNumEdgeLearned,
                         float operationQualityFactor);
void learner_free(learner_t *learnerPtr);

/* Learn with the threads of the pool: build the initial task list, then
 * apply tasks until none is left. */
void learner_run(learner_t *learnerPtr);

/* -0.5 (total parents) ln N + N * sum of every variable's
 * log-likelihood given its parents (sequential). */
float learner_scoreNet(net_t *netPtr, adtree_t *adtreePtr);

#endif /* BAYES_LEARNER_H */
