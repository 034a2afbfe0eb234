/* lib/stats.c — names and JSON form of the statistics. */
#include "potm_internal.h"

#include <inttypes.h>

static const char *const cause_names[TM_ABORT__COUNT] = {
	[TM_ABORT_READ_LOCKED] = "read_locked",
	[TM_ABORT_READ_VERSION] = "read_version",
	[TM_ABORT_WRITE_LOCKED] = "write_locked",
	[TM_ABORT_VALIDATE] = "validate",
	[TM_ABORT_EXPLICIT] = "explicit",
	[TM_ABORT_ORDER] = "order",
	[TM_ABORT_HTM_CONFLICT] = "htm_conflict",
	[TM_ABORT_HTM_CAPACITY] = "htm_capacity",
	[TM_ABORT_HTM_EXPLICIT] = "htm_explicit",
	[TM_ABORT_HTM_RETRY] = "htm_retry",
	[TM_ABORT_HTM_NESTED] = "htm_nested",
	[TM_ABORT_HTM_OTHER] = "htm_other",
	[TM_ABORT_SERIAL] = "serial",
	[TM_ABORT_CONDITION] = "condition",
};

const char *tm_abort_cause_name(int cause)
{
	if (cause < 0 || cause >= TM_ABORT__COUNT)
		return NULL;
	return cause_names[cause];
}

void tm_stats_print_json(FILE *f, const tm_stats_t *s)
{
#define FIELD(name) fprintf(f, "\"" #name "\": %" PRIu64 ", ", s->name)
	fputc('{', f);
	FIELD(commits);
	FIELD(commits_ro);
	FIELD(cancels);
	FIELD(aborts);
	FIELD(reads);
	FIELD(writes);
	FIELD(extensions);
	FIELD(fast_commits);
	FIELD(promotions);
	FIELD(spec_commits);
	FIELD(wait_turn_ns);
	FIELD(irrevocable);
	FIELD(shared_reads);
	FIELD(serial);
	FIELD(htm_starts);
	FIELD(htm_commits);
	FIELD(htm_fallbacks);
	FIELD(htm_persistent);
	FIELD(allocs);
	FIELD(frees);
	FIELD(reclaimed);
	FIELD(early_fast);
#undef FIELD
	fputs("\"aborts_by_cause\": {", f);
	for (int c = 0; c < TM_ABORT__COUNT; c++)
		fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "", cause_names[c],
		        s->aborts_by_cause[c]);
	fputs("}}", f);
}
