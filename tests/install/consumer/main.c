/* An installed-potm consumer: one transaction, then prints OK. */
#include <potm/tm.h>
#include <stdio.h>

static long x;

int main(void)
{
	int rc = tm_init(NULL);
	if (rc == TM_ERR_UNSUPPORTED) {
		printf("OK (backend unsupported here: %s)\n", tm_last_error());
		return 0;
	}
	if (rc != 0 || tm_thread_enter(0) != 0) {
		fprintf(stderr, "consumer: %s\n", tm_last_error());
		return 1;
	}
	TM_BEGIN();
	TM_STORE(&x, TM_LOAD(&x) + 41);
	TM_END();
	tm_thread_exit();
	tm_shutdown();
	if (x != 41)
		return 1;
	printf("OK %s\n", tm_backend_name());
	return 0;
}
