/*
 * genScalData.h — SSCA#2's scalable data generator (sequential).
 */
#ifndef SSCA2_GENSCALDATA_H
#define SSCA2_GENSCALDATA_H 1

#include "defs.h"

/* Generate the graph of p from the generator's fixed seed (0). */
graph_sdg_t *genScalData(const ssca2_params_t *p);
void graph_sdg_free(graph_sdg_t *sdg);

#endif /* SSCA2_GENSCALDATA_H */
