/*
 * learner.c — see learner.h.
 *
 * Follows STAMP's learner step by step, including the quirks STAMP's
 * description marks "sic" (so that the search behaves, and scores come
 * out, as STAMP's):
 *  - the initial insert scores use the thread's partial sum of base
 *    log-likelihoods, not the global one;
 *  - after applying a task, delta accumulates old - new (the opposite
 *    sign of the improvement), and a REMOVE recomputes the local
 *    log-likelihood of fromId, not toId;
 *  - a removal candidate drops the parent whose list position equals the
 *    candidate's id;
 *  - a reversal candidate restarts its running best at
 *    old + localBase[from] for each parent.
 * Floating-point follows STAMP too: logarithms in double, sums in float.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "learner.h"
#include "query.h"
#include "thread.h"
#include "tm.h"

static void outOfMemory(void)
{
	fprintf(stderr, "bayes: out of memory\n");
	exit(1);
}

int query_compareByIndex(const void *aPtrPtr, const void *bPtrPtr)
{
	const query_t *a = *(query_t *const *)aPtrPtr;
	const query_t *b = *(query_t *const *)bPtrPtr;
	return (a->index > b->index) - (a->index < b->index);
}

/* Best first: descending score, then ascending target. */
static long compareTask(const void *aPtr, const void *bPtr)
{
	const learner_task_t *a = aPtr, *b = bPtr;
	if (a->score < b->score)
		return 1;
	if (a->score > b->score)
		return -1;
	return (a->toId > b->toId) - (a->toId < b->toId);
}

learner_t *learner_alloc(adtree_t *adtreePtr, long insertPenalty, long maxNumEdgeLearned,
                         float operationQualityFactor)
{
	learner_t *l = calloc(1, sizeof *l);
	if (l == NULL)
		outOfMemory();
	long numVar = adtreePtr->numVar;
	l->adtreePtr = adtreePtr;
	l->netPtr = net_alloc(numVar);
	l->localBaseLogLikelihoods = calloc(numVar, sizeof(float));
	l->tasks = calloc(numVar, sizeof *l->tasks);
	l->taskListPtr = list_alloc(compareTask);
	if (l->netPtr == NULL || l->localBaseLogLikelihoods == NULL || l->tasks == NULL ||
	    l->taskListPtr == NULL)
		outOfMemory();
	l->insertPenalty = insertPenalty;
	l->maxNumEdgeLearned = maxNumEdgeLearned;
	l->operationQualityFactor = operationQualityFactor;
	l->basePenalty = (float)(-0.5 * log((double)adtreePtr->numRecord));
	return l;
}

void learner_free(learner_t *l)
{
	list_free(l->taskListPtr);
	free(l->tasks);
	free(l->localBaseLogLikelihoods);
	net_free(l->netPtr);
	free(l);
}

/* ---- log-likelihoods ------------------------------------------------------------------ */

/* One assignment's term: P(assignment) ln P(assignment | parents' part). */
static float computeSpecificLocalLogLikelihood(const adtree_t *t, vector_t *queryVector,
                                               vector_t *parentQueryVector)
{
	long count = adtree_getCount(t, queryVector);
	if (count == 0)
		return 0.0f;
	double probability = (double)count / (double)t->numRecord;
	long parentCount = adtree_getCount(t, parentQueryVector);
	if (parentCount < count || parentCount <= 0) {
		fprintf(stderr, "bayes: AD-tree counts are inconsistent\n");
		exit(1);
	}
	return (float)(probability * log((double)count / (double)parentCount));
}

/* Sum over the values of parents i.. (the others fixed by the caller). */
static float computeLocalLogLikelihoodHelper(long i, long numParent, const adtree_t *t,
                                             query_t *queries, vector_t *queryVector,
                                             vector_t *parentQueryVector)
{
	if (i >= numParent)
		return computeSpecificLocalLogLikelihood(t, queryVector, parentQueryVector);
	query_t *parent = vector_at(parentQueryVector, i);
	float sum = 0.0f;
	queries[parent->index].value = 0;
	sum += computeLocalLogLikelihoodHelper(i + 1, numParent, t, queries, queryVector,
	                                       parentQueryVector);
	queries[parent->index].value = 1;
	sum += computeLocalLogLikelihoodHelper(i + 1, numParent, t, queries, queryVector,
	                                       parentQueryVector);
	queries[parent->index].value = QUERY_VALUE_WILDCARD;
	return sum;
}

/* LL(id | parents): queryVector holds id's and the parents' queries,
 * parentQueryVector the parents' (both sorted by index). */
static float computeLocalLogLikelihood(long id, const adtree_t *t, query_t *queries,
                                       vector_t *queryVector, vector_t *parentQueryVector)
{
	long numParent = vector_getSize(parentQueryVector);
	float sum = 0.0f;
	if (numParent == 0) {
		for (long value = 0; value <= 1; value++) {
			queries[id].value = value;
			long count = adtree_getCount(t, queryVector);
			if (count != 0) {
				double probability = (double)count / (double)t->numRecord;
				sum += count * log(probability);
			}
		}
		queries[id].value = QUERY_VALUE_WILDCARD;
		return sum / t->numRecord;
	}
	queries[id].value = 0;
	sum += computeLocalLogLikelihoodHelper(0, numParent, t, queries, queryVector,
	                                       parentQueryVector);
	queries[id].value = 1;
	sum += computeLocalLogLikelihoodHelper(0, numParent, t, queries, queryVector,
	                                       parentQueryVector);
	queries[id].value = QUERY_VALUE_WILDCARD;
	return sum;
}

/* ---- per-thread scratch ------------------------------------------------------------------- */

typedef struct scratch {
	query_t *queries;                  /* queries[v] = { v, value } */
	vector_t *queryVector;
	vector_t *parentQueryVector;
	vector_t *origParentQueryVector;
	vector_t *fromOrigParentQueryVector;
	vector_t *fromQueryVector;
	vector_t *fromParentQueryVector;
	bitmap_t *invalidBitmap;
	bitmap_t *visitedBitmap;
	queue_t *workQueue;
} scratch_t;

static scratch_t *scratch_alloc(long numVar)
{
	scratch_t *s = malloc(sizeof *s);
	if (s == NULL || (s->queries = malloc(numVar * sizeof *s->queries)) == NULL)
		outOfMemory();
	for (long v = 0; v < numVar; v++)
		s->queries[v] = (query_t){ v, QUERY_VALUE_WILDCARD };
	s->queryVector = vector_alloc(numVar + 1);
	s->parentQueryVector = vector_alloc(numVar + 1);
	s->origParentQueryVector = vector_alloc(numVar + 1);
	s->fromOrigParentQueryVector = vector_alloc(numVar + 1);
	s->fromQueryVector = vector_alloc(numVar + 1);
	s->fromParentQueryVector = vector_alloc(numVar + 1);
	s->invalidBitmap = bitmap_alloc(numVar);
	s->visitedBitmap = bitmap_alloc(numVar);
	s->workQueue = queue_alloc(numVar);
	if (s->queryVector == NULL || s->parentQueryVector == NULL ||
	    s->origParentQueryVector == NULL || s->fromOrigParentQueryVector == NULL ||
	    s->fromQueryVector == NULL || s->fromParentQueryVector == NULL ||
	    s->invalidBitmap == NULL || s->visitedBitmap == NULL || s->workQueue == NULL)
		outOfMemory();
	return s;
}

static void scratch_free(scratch_t *s)
{
	free(s->queries);
	vector_free(s->queryVector);
	vector_free(s->parentQueryVector);
	vector_free(s->origParentQueryVector);
	vector_free(s->fromOrigParentQueryVector);
	vector_free(s->fromQueryVector);
	vector_free(s->fromParentQueryVector);
	bitmap_free(s->invalidBitmap);
	bitmap_free(s->visitedBitmap);
	queue_free(s->workQueue);
	free(s);
}

/* The queries of id's parents, read transactionally. */
static void TMpopulateParentQueryVector(TM_ARGDECL net_t *net, long id, query_t *queries,
                                        vector_t *parentQueryVector)
{
	vector_clear(parentQueryVector);
	list_t *parents = net_getParentIdListPtr(net, id);
	list_iter_t it;
	TMLIST_ITER_RESET(&it, parents);
	while (TMLIST_ITER_HASNEXT(&it, parents))
		vector_pushBack(parentQueryVector, &queries[(long)TMLIST_ITER_NEXT(&it, parents)]);
}

/* queryVector = parents + id, sorted (parentQueryVector is sorted). */
static void buildQueryVector(vector_t *queryVector, vector_t *parentQueryVector,
                             query_t *extra)
{
	vector_copy(queryVector, parentQueryVector);
	vector_pushBack(queryVector, extra);
	vector_sort(queryVector, query_compareByIndex);
}

/* ---- phase 1: the initial tasks --------------------------------------------------------------- */

static void addBaseLogLikelihood(TM_ARGDECL learner_t *l, float partial)
{
	TM_BEGIN();
	TM_SHARED_WRITE_F(l->baseLogLikelihood, TM_SHARED_READ_F(l->baseLogLikelihood) + partial);
	TM_END();
}

static void insertTask(TM_ARGDECL learner_t *l, learner_task_t *task)
{
	TM_BEGIN();
	TMLIST_INSERT(l->taskListPtr, task);
	TM_END();
}

/* Variables are split statically: thread i takes [i * chunk, ...), the
 * last one the rest. */
static void partition(long total, long id, long numThread, long *startPtr, long *stopPtr)
{
	long chunk = (long)((double)total / (double)numThread + 0.5);
	long start = id * chunk;
	long stop = id == numThread - 1 ? total : start + chunk;
	*startPtr = start < total ? start : total;
	*stopPtr = stop < total ? stop : total;
}

static void createTaskList(void *argPtr)
{
	TM_THREAD_ENTER();
	learner_t *l = argPtr;
	adtree_t *t = l->adtreePtr;
	long numVar = t->numVar;
	scratch_t *s = scratch_alloc(numVar);
	query_t *queries = s->queries;
	long start, stop;
	partition(numVar, thread_getId(), thread_getNumThread(), &start, &stop);

	/* Each variable's log-likelihood without parents. */
	float partial = 0.0f;
	for (long v = start; v < stop; v++) {
		vector_clear(s->queryVector);
		vector_clear(s->parentQueryVector);
		vector_pushBack(s->queryVector, &queries[v]);
		float localBase = 0.0f;
		queries[v].value = 0;
		localBase += computeSpecificLocalLogLikelihood(t, s->queryVector, s->parentQueryVector);
		queries[v].value = 1;
		localBase += computeSpecificLocalLogLikelihood(t, s->queryVector, s->parentQueryVector);
		queries[v].value = QUERY_VALUE_WILDCARD;
		l->localBaseLogLikelihoods[v] = localBase;   /* ours alone in this phase */
		partial += localBase;
	}
	addBaseLogLikelihood(TM_ARG l, partial);

	/* For each variable, the single parent that helps most, if any. */
	for (long v = start; v < stop; v++) {
		float localBase = l->localBaseLogLikelihoods[v];
		long bestIndex = v;
		float best = localBase;
		for (long vv = 0; vv < numVar; vv++) {
			if (vv == v)
				continue;
			vector_clear(s->parentQueryVector);
			vector_pushBack(s->parentQueryVector, &queries[vv]);
			buildQueryVector(s->queryVector, s->parentQueryVector, &queries[v]);
			float newLL = 0.0f;
			for (long a = 0; a <= 1; a++) {
				for (long b = 0; b <= 1; b++) {
					queries[v].value = a;
					queries[vv].value = b;
					newLL += computeSpecificLocalLogLikelihood(t, s->queryVector,
					                                           s->parentQueryVector);
				}
			}
			queries[v].value = QUERY_VALUE_WILDCARD;
			queries[vv].value = QUERY_VALUE_WILDCARD;
			if (newLL > best) {
				best = newLL;
				bestIndex = vv;
			}
		}
		if (bestIndex == v)
			continue;
		learner_task_t *task = &l->tasks[v];
		task->op = OPERATION_INSERT;
		task->fromId = bestIndex;
		task->toId = v;
		float logLikelihood = t->numRecord * (partial + best - localBase);
		task->score = l->basePenalty + logLikelihood;
		insertTask(TM_ARG l, task);
	}

	scratch_free(s);
	TM_THREAD_EXIT();
}

/* ---- phase 2: applying tasks ------------------------------------------------------------------ */

static learner_task_t *popTask(TM_ARGDECL learner_t *l)
{
	learner_task_t *volatile task = NULL;
	TM_BEGIN();
	learner_task_t *head = NULL;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, l->taskListPtr);
	if (TMLIST_ITER_HASNEXT(&it, l->taskListPtr)) {
		head = TMLIST_ITER_NEXT(&it, l->taskListPtr);
		TMLIST_REMOVE(l->taskListPtr, head);
	}
	task = head;
	TM_END();
	return task;
}

/* Check the task against the current structure and apply it if valid. */
static bool_t applyTask(TM_ARGDECL learner_t *l, scratch_t *s, operation_t op, long fromId,
                        long toId)
{
	volatile bool_t applied = FALSE;
	TM_BEGIN();
	net_t *net = l->netPtr;
	bool_t isValid = TRUE;
	switch (op) {
	case OPERATION_INSERT:
		if (TMnet_hasEdge(TM_ARG net, fromId, toId) ||
		    TMnet_isPath(TM_ARG net, toId, fromId, s->visitedBitmap, s->workQueue))
			isValid = FALSE;
		break;
	case OPERATION_REMOVE:
		break;   /* always valid */
	case OPERATION_REVERSE:
		/* Valid if no other path leads from fromId to toId. */
		TMnet_applyOperation(TM_ARG net, OPERATION_REMOVE, fromId, toId);
		if (TMnet_isPath(TM_ARG net, fromId, toId, s->visitedBitmap, s->workQueue))
			isValid = FALSE;
		TMnet_applyOperation(TM_ARG net, OPERATION_INSERT, fromId, toId);
		break;
	default:
		isValid = FALSE;
	}
	if (isValid)
		TMnet_applyOperation(TM_ARG net, op, fromId, toId);
	applied = isValid;
	TM_END();
	return applied;
}

/* Recompute id's local log-likelihood; returns old - new. */
static float updateLocalLogLikelihood(TM_ARGDECL learner_t *l, scratch_t *s, long id)
{
	volatile float delta = 0.0f;
	TM_BEGIN();
	TMpopulateParentQueryVector(TM_ARG l->netPtr, id, s->queries, s->parentQueryVector);
	buildQueryVector(s->queryVector, s->parentQueryVector, &s->queries[id]);
	float newLL = computeLocalLogLikelihood(id, l->adtreePtr, s->queries, s->queryVector,
	                                        s->parentQueryVector);
	float oldLL = TM_SHARED_READ_F(l->localBaseLogLikelihoods[id]);
	TM_SHARED_WRITE_F(l->localBaseLogLikelihoods[id], newLL);
	delta = oldLL - newLL;
	TM_END();
	return delta;
}

static void addTotalParent(TM_ARGDECL learner_t *l, long n)
{
	TM_BEGIN();
	TM_SHARED_WRITE(l->numTotalParent, (long)TM_SHARED_READ(l->numTotalParent) + n);
	TM_END();
}

/* baseLogLikelihood += delta; returns the new value and the total number
 * of parents. */
static float updateBaseLogLikelihood(TM_ARGDECL learner_t *l, float delta,
                                     long *numTotalParentPtr)
{
	volatile float base = 0.0f;
	TM_BEGIN();
	float newBase = TM_SHARED_READ_F(l->baseLogLikelihood) + delta;
	TM_SHARED_WRITE_F(l->baseLogLikelihood, newBase);
	base = newBase;
	TM_LOCAL_WRITE(*numTotalParentPtr, (long)TM_SHARED_READ(l->numTotalParent));
	TM_END();
	return base;
}

/* ---- candidate tasks for one target variable ------------------------------------------------ */

typedef struct search {
	long toId;
	float baseLogLikelihood;
	long numTotalParent;
} search_t;

/* The parent whose insertion helps toId most (none: fromId == toId). */
static learner_task_t findBestInsertTask(TM_ARGDECL learner_t *l, scratch_t *s,
                                         const search_t *q)
{
	learner_task_t result;
	TM_BEGIN();
	long toId = q->toId;
	query_t *queries = s->queries;
	TMpopulateParentQueryVector(TM_ARG l->netPtr, toId, queries, s->origParentQueryVector);
	long numParent = vector_getSize(s->origParentQueryVector);
	/* Descendants and parents cannot become parents. */
	TMnet_findDescendants(TM_ARG l->netPtr, toId, s->invalidBitmap, s->workQueue);
	for (long p = 0; p < numParent; p++)
		bitmap_set(s->invalidBitmap, ((query_t *)vector_at(s->origParentQueryVector, p))->index);
	float oldLL = TM_SHARED_READ_F(l->localBaseLogLikelihoods[toId]);
	float bestLL = oldLL;
	long bestFromId = toId;
	if (l->maxNumEdgeLearned < 0 || numParent <= l->maxNumEdgeLearned) {
		for (long fromId = bitmap_findClear(s->invalidBitmap, 0); fromId >= 0;
		     fromId = bitmap_findClear(s->invalidBitmap, fromId + 1)) {
			if (fromId == toId)
				continue;
			vector_copy(s->parentQueryVector, s->origParentQueryVector);
			vector_pushBack(s->parentQueryVector, &queries[fromId]);
			vector_sort(s->parentQueryVector, query_compareByIndex);
			buildQueryVector(s->queryVector, s->parentQueryVector, &queries[toId]);
			float newLL = computeLocalLogLikelihood(toId, l->adtreePtr, queries,
			                                        s->queryVector, s->parentQueryVector);
			if (newLL > bestLL) {
				bestFromId = fromId;
				bestLL = newLL;
			}
		}
	}
	float penalty = (q->numTotalParent + (numParent + 1) * l->insertPenalty) * l->basePenalty;
	float logLikelihood = l->adtreePtr->numRecord * (q->baseLogLikelihood + bestLL - oldLL);
	result = (learner_task_t){ OPERATION_INSERT, bestFromId, toId, penalty + logLikelihood };
	TM_END();
	return result;
}

/* The parent of toId whose removal scores best. */
static learner_task_t findBestRemoveTask(TM_ARGDECL learner_t *l, scratch_t *s,
                                         const search_t *q)
{
	learner_task_t result;
	TM_BEGIN();
	long toId = q->toId;
	query_t *queries = s->queries;
	TMpopulateParentQueryVector(TM_ARG l->netPtr, toId, queries, s->origParentQueryVector);
	long numParent = vector_getSize(s->origParentQueryVector);
	float oldLL = TM_SHARED_READ_F(l->localBaseLogLikelihoods[toId]);
	float bestLL = oldLL;   /* a removal must raise the likelihood */
	long bestFromId = toId;
	for (long i = 0; i < numParent; i++) {
		long fromId = ((query_t *)vector_at(s->origParentQueryVector, i))->index;
		/* (sic) drops the parent at list position fromId. */
		vector_clear(s->parentQueryVector);
		for (long p = 0; p < numParent; p++)
			if (p != fromId)
				vector_pushBack(s->parentQueryVector, vector_at(s->origParentQueryVector, p));
		buildQueryVector(s->queryVector, s->parentQueryVector, &queries[toId]);
		float newLL = computeLocalLogLikelihood(toId, l->adtreePtr, queries, s->queryVector,
		                                        s->parentQueryVector);
		if (newLL > bestLL) {
			bestLL = newLL;
			bestFromId = fromId;
		}
	}
	float penalty = (q->numTotalParent - 1) * l->basePenalty;
	float logLikelihood = l->adtreePtr->numRecord * (q->baseLogLikelihood + bestLL - oldLL);
	result = (learner_task_t){ OPERATION_REMOVE, bestFromId, toId, penalty + logLikelihood };
	TM_END();
	return result;
}

/* The parent of toId whose edge is best reversed (checked to keep the
 * net acyclic by removing it, looking for another path, restoring it). */
static learner_task_t findBestReverseTask(TM_ARGDECL learner_t *l, scratch_t *s,
                                          const search_t *q)
{
	learner_task_t result;
	TM_BEGIN();
	long toId = q->toId;
	net_t *net = l->netPtr;
	query_t *queries = s->queries;
	TMpopulateParentQueryVector(TM_ARG net, toId, queries, s->origParentQueryVector);
	long numParent = vector_getSize(s->origParentQueryVector);
	float oldLL = TM_SHARED_READ_F(l->localBaseLogLikelihoods[toId]);
	float bestLL = oldLL;   /* reset per parent below */
	long bestFromId = toId;
	for (long i = 0; i < numParent; i++) {
		long fromId = ((query_t *)vector_at(s->origParentQueryVector, i))->index;
		bestLL = oldLL + TM_SHARED_READ_F(l->localBaseLogLikelihoods[fromId]);   /* (sic) */
		TMpopulateParentQueryVector(TM_ARG net, fromId, queries, s->fromOrigParentQueryVector);
		/* toId without fromId (with the same quirk as removal) ... */
		vector_clear(s->parentQueryVector);
		for (long p = 0; p < numParent; p++)
			if (p != fromId)
				vector_pushBack(s->parentQueryVector, vector_at(s->origParentQueryVector, p));
		buildQueryVector(s->queryVector, s->parentQueryVector, &queries[toId]);
		/* ... and fromId with toId as a parent. */
		vector_copy(s->fromParentQueryVector, s->fromOrigParentQueryVector);
		vector_pushBack(s->fromParentQueryVector, &queries[toId]);
		vector_sort(s->fromParentQueryVector, query_compareByIndex);
		buildQueryVector(s->fromQueryVector, s->fromParentQueryVector, &queries[fromId]);
		float newLL = computeLocalLogLikelihood(toId, l->adtreePtr, queries, s->queryVector,
		                                        s->parentQueryVector) +
		              computeLocalLogLikelihood(fromId, l->adtreePtr, queries,
		                                        s->fromQueryVector, s->fromParentQueryVector);
		if (newLL > bestLL) {
			bestLL = newLL;
			bestFromId = fromId;
		}
	}
	if (bestFromId != toId) {
		TMnet_applyOperation(TM_ARG net, OPERATION_REMOVE, bestFromId, toId);
		bool_t cyclic = TMnet_isPath(TM_ARG net, bestFromId, toId, s->visitedBitmap,
		                             s->workQueue);
		TMnet_applyOperation(TM_ARG net, OPERATION_INSERT, bestFromId, toId);
		if (cyclic)
			bestFromId = toId;
	}
	float fromLL = TM_SHARED_READ_F(l->localBaseLogLikelihoods[bestFromId]);
	float penalty = q->numTotalParent * l->basePenalty;
	float logLikelihood =
	        l->adtreePtr->numRecord * (q->baseLogLikelihood + bestLL - oldLL - fromLL);
	result = (learner_task_t){ OPERATION_REVERSE, bestFromId, toId, penalty + logLikelihood };
	TM_END();
	return result;
}

static void learnStructure(void *argPtr)
{
	TM_THREAD_ENTER();
	learner_t *l = argPtr;
	long numRecord = l->adtreePtr->numRecord;
	scratch_t *s = scratch_alloc(l->adtreePtr->numVar);
	for (;;) {
		learner_task_t *task = popTask(TM_ARG l);
		if (task == NULL)
			break;
		operation_t op = task->op;   /* the slot is ours until re-inserted */
		long fromId = task->fromId;
		long toId = task->toId;

		float delta = 0.0f;
		if (applyTask(TM_ARG l, s, op, fromId, toId)) {
			switch (op) {
			case OPERATION_INSERT:
				delta += updateLocalLogLikelihood(TM_ARG l, s, toId);
				addTotalParent(TM_ARG l, 1);
				break;
			case OPERATION_REMOVE:
				delta += updateLocalLogLikelihood(TM_ARG l, s, fromId);   /* (sic) */
				addTotalParent(TM_ARG l, -1);
				break;
			case OPERATION_REVERSE:
				delta += updateLocalLogLikelihood(TM_ARG l, s, fromId);
				delta += updateLocalLogLikelihood(TM_ARG l, s, toId);
				break;
			default:
				break;
			}
		}

		long numTotalParent = 0;
		float baseLL = updateBaseLogLikelihood(TM_ARG l, delta, &numTotalParent);

		/* The next task for toId: the best candidate that beats the
		 * current score by the quality factor. */
		learner_task_t best = { NUM_OPERATION, -1, -1,
		                        numTotalParent * l->basePenalty + numRecord * baseLL };
		search_t q = { toId, baseLL, numTotalParent };
		learner_task_t candidates[3] = {
			findBestInsertTask(TM_ARG l, s, &q),
			findBestRemoveTask(TM_ARG l, s, &q),
			findBestReverseTask(TM_ARG l, s, &q),
		};
		for (int c = 0; c < 3; c++)
			if (candidates[c].fromId != candidates[c].toId &&
			    candidates[c].score > best.score / l->operationQualityFactor)
				best = candidates[c];
		if (best.toId != -1) {
			l->tasks[toId] = best;
			insertTask(TM_ARG l, &l->tasks[toId]);
		}
	}
	scratch_free(s);
	TM_THREAD_EXIT();
}

void learner_run(learner_t *l)
{
	thread_start(createTaskList, l);
	thread_start(learnStructure, l);
}

float learner_scoreNet(net_t *net, adtree_t *t)
{
	long numVar = t->numVar;
	scratch_t *s = scratch_alloc(numVar);
	long numTotalParent = 0;
	float logLikelihood = 0.0f;
	for (long v = 0; v < numVar; v++) {
		vector_clear(s->parentQueryVector);
		list_t *parents = net_getParentIdListPtr(net, v);
		list_iter_t it;
		list_iter_reset(&it, parents);
		while (list_iter_hasNext(&it, parents))
			vector_pushBack(s->parentQueryVector, &s->queries[(long)list_iter_next(&it, parents)]);
		buildQueryVector(s->queryVector, s->parentQueryVector, &s->queries[v]);
		numTotalParent += vector_getSize(s->parentQueryVector);
		logLikelihood += computeLocalLogLikelihood(v, t, s->queries, s->queryVector,
		                                           s->parentQueryVector);
	}
	scratch_free(s);
	float penalty = (float)(-0.5 * (double)numTotalParent * log((double)t->numRecord));
	return penalty + t->numRecord * logLikelihood;
}
