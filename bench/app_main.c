/*
 * app_main.c — the main() of a benchmark program whose objects are shared
 * with its library for the Python package.
 *
 * A STAMP application and STMBench7 are compiled once per backend with
 * their main() renamed to potm_app_main (-Dmain=potm_app_main).  Those
 * objects and this file make the executable (<app>-<backend>,
 * stmbench7-<backend>); the same objects and the program's library file
 * (stamp/compat/app_library.c, stmbench7/sb7_library.c), which exports
 * potm_bench_main, make libpotm-bench-<backend>-<program>.so.
 */
int potm_app_main(int argc, char **argv);

int main(int argc, char **argv)
{
	return potm_app_main(argc, argv);
}
