# The README's two commands:
#   make demo   install what is missing, build every backend, run the default
#               experiment and print its table and the paths of its figures
#   make test   install what is missing, build, run every test: ctest (Check),
#               mypy --strict and pytest in a Release build, ctest again in an
#               ASan+UBSan build, and the POWER backends cross-built for
#               powerpc64le and tested under qemu-ppc64le
# Every build configured here treats warnings as errors (POTM_WERROR=ON,
# off by default in a build configured by hand).
BUILD      ?= build
ASAN_BUILD ?= build-asan
PPC_BUILD  ?= build-ppc64le
JOBS       ?= 2
PYTHON     ?= python3
CMAKE_ARGS ?=

PY_TESTS := $(wildcard bindings/python/tests)
# pytest-xdist (scripts/deps.sh installs it): JOBS processes, each test file
# on one process (loadfile), so a file's module-scoped fixtures run once.
# Without it, one process.
PYTEST_PARALLEL = $(shell $(PYTHON) -c 'import xdist' 2>/dev/null && \
                          echo '-n $(JOBS) --dist loadfile')

.PHONY: all deps build build-asan build-ppc64le demo test test-release test-asan \
        test-ppc64le install clean

all: build

deps:
	bash scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPOTM_WERROR=ON $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# Static libraries only: the sanitizer run is ctest's, and the shared
# libraries (the Python package's) are the same code, tested in Release.
# STAMP (each application compiled once per backend) only on tl2 (and its
# compat-path builds), 2pl, silo and pot (and its determinism tests): the
# other backends' STAMP runs are in the Release build, and their library
# code runs here under the C tests.
ASAN_STAMP_BACKENDS := tl2;2pl;silo;pot

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
	      -DPOTM_SANITIZE=ON -DPOTM_WERROR=ON -DPOTM_BUILD_SHARED=OFF \
	      -DPOTM_STAMP_BACKENDS="$(ASAN_STAMP_BACKENDS)" $(CMAKE_ARGS)

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake $(ASAN_BUILD) -DPOTM_BUILD_SHARED=OFF \
	      -DPOTM_STAMP_BACKENDS="$(ASAN_STAMP_BACKENDS)" >/dev/null  # an existing cache takes these too
	cmake --build $(ASAN_BUILD) -j$(JOBS)

# The default experiment: potm reproduce --quick, which prints
# a summary table and the paths of its figures.
demo: build
	PYTHONPATH=$(abspath bindings/python) POTMPY_LIB_DIR=$(abspath $(BUILD)) \
	    $(PYTHON) -m potm reproduce --quick --out results/quick

test: test-release test-asan test-ppc64le

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)
ifneq ($(PY_TESTS),)
	MYPYPATH=$(abspath bindings/python) $(PYTHON) -m mypy --strict \
	    bindings/python/potm bindings/python/tests experiments scripts
	POTMPY_BUILD_DIR=$(abspath $(BUILD)) PYTHONPATH=$(abspath bindings/python) \
	    $(PYTHON) -m pytest -q $(PYTEST_PARALLEL) bindings/python/tests
endif

# The sanitizer run checks memory and UB in the C library and its tests; the
# benchmark smoke tests run there too (they verify their own results).
test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS) -E '^t-install-'

# POWER8 (rot and pot-rot): cross-compiled, run under qemu-user, where
# tbegin. always fails, so the fallback and ordering paths run for real and
# the hardware commit paths do not.
PPC_BACKENDS := tl2;rot;pot-rot

$(PPC_BUILD)/CMakeCache.txt:
	cmake -S . -B $(PPC_BUILD) -DCMAKE_BUILD_TYPE=Release \
	      -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-ppc64le.cmake \
	      -DPOTM_PPC_SYSROOT=$$(bash scripts/ppc64le-sysroot.sh --print) \
	      -DPOTM_BUILD_SHARED=OFF -DPOTM_BACKENDS="$(PPC_BACKENDS)" \
	      -DPOTM_BUILD_STAMP=OFF -DPOTM_BUILD_STMBENCH7=ON -DPOTM_WERROR=ON $(CMAKE_ARGS)

build-ppc64le: deps $(PPC_BUILD)/CMakeCache.txt
	cmake $(PPC_BUILD) -DPOTM_BACKENDS="$(PPC_BACKENDS)" -DPOTM_BUILD_STMBENCH7=ON >/dev/null  # an existing cache takes these settings too
	cmake --build $(PPC_BUILD) -j$(JOBS)

test-ppc64le: build-ppc64le
	ctest --test-dir $(PPC_BUILD) --output-on-failure -j$(JOBS) -E '^t-install-' \
	      -R '(rot|pot-rot|htm-decide|bench-.*-tl2|sb7-)'

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(PPC_BUILD)
