# cmake/aarch64-linux-gnu.cmake - cross-compiling tress for 64-bit ARM Linux with Debian's
# gcc-aarch64-linux-gnu, against arm64 libraries installed through multiarch
# (dpkg --add-architecture arm64; apt-get install libcmocka-dev:arm64 ...: scripts/setup), and
# running what it builds under qemu-user (ctest and add_test use the emulator).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TRESS_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${TRESS_CROSS_TRIPLE}-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/${TRESS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the arm64 .pc files only (multiarch puts them under the triple), never the
# host's, so a library missing for arm64 fails at configure instead of linking x86-64 objects.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${TRESS_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# Test executables run through qemu-user with the cross C library's loader.
find_program(TRESS_QEMU_AARCH64 qemu-aarch64 qemu-aarch64-static)
if(TRESS_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TRESS_QEMU_AARCH64};-L;/usr/${TRESS_CROSS_TRIPLE})
endif()
