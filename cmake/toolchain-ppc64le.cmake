# Cross build for IBM POWER8 little-endian (the rot backends), run under
# qemu-user.  The target libraries come from the sysroot that
# scripts/ppc64le-sysroot.sh unpacks (pass -DPOTM_PPC_SYSROOT=<dir>).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(CMAKE_C_COMPILER powerpc64le-linux-gnu-gcc)

list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES POTM_PPC_SYSROOT)
if(NOT POTM_PPC_SYSROOT)
  message(FATAL_ERROR "POTM_PPC_SYSROOT is not set: run scripts/deps.sh and pass "
                      "-DPOTM_PPC_SYSROOT=$(scripts/ppc64le-sysroot.sh --print)")
endif()
set(_multiarch ${POTM_PPC_SYSROOT}/usr/lib/powerpc64le-linux-gnu)

# ISA 2.07 with HTM; gnu11 is set by the project (plain c11 hides POSIX).
set(CMAKE_C_FLAGS_INIT "-mcpu=power8 -mhtm -I${POTM_PPC_SYSROOT}/usr/include -I${POTM_PPC_SYSROOT}/usr/include/powerpc64le-linux-gnu")
# Static executables: qemu-user then needs no target dynamic loader setup.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -L${_multiarch}")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-ppc64le -L /usr/powerpc64le-linux-gnu)

set(CMAKE_FIND_ROOT_PATH ${POTM_PPC_SYSROOT} /usr/powerpc64le-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static dependencies: the root CMakeLists applies this after the platform
# module (which would reset CMAKE_FIND_LIBRARY_SUFFIXES to .so;.a).
set(POTM_STATIC_DEPS ON)

set(ENV{PKG_CONFIG_LIBDIR} ${_multiarch}/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${POTM_PPC_SYSROOT})
set(ENV{PKG_CONFIG_PATH} "")
