#!/usr/bin/env bash
# Install test: a libraries-only build of tress (static, or shared with `shared`), installed into
# a temporary prefix, then two consumers outside the tree: tests/install/find_package (CMake,
# tress::sim only) and chain.c built with pkg-config. Both bind a chain, step it and check the
# tip fell. Also checked: every public header is installed, every documented target exists, the
# sim-alone consumer pulls in no networking, event-loop or JSON library, and (shared) each
# library exports only tress_* symbols.
#   install_test.sh SOURCE_DIR WORK_DIR static|shared
set -euo pipefail
src=$1 work=$2 kind=$3
shared=OFF; [ "$kind" = shared ] && shared=ON
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# libraries only: no server, tools, tests, benches; the client (ENet) is left on so that
# tress::protocol and tress::client are installed and found too.
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=$shared \
  -DTRESS_BUILD_SERVER=OFF -DTRESS_BUILD_TOOLS=OFF -DTRESS_BUILD_TESTS=OFF -DTRESS_BUILD_BENCH=OFF \
  -DTRESS_WERROR=ON >/dev/null
cmake --build "$work/build" -j2 >/dev/null
prefix=$work/prefix
cmake --install "$work/build" --prefix "$prefix" >/dev/null

# every public header of the source tree, and nothing else, under include/tress/
(cd "$src" && ls shared/*/include/tress/*.h protocol/include/tress/*.h client/include/tress/*.h | xargs -n1 basename | sort) > "$work/headers.src"
(cd "$prefix/include/tress" && ls *.h | sort) > "$work/headers.installed"
diff "$work/headers.src" "$work/headers.installed" || fail "installed headers differ from the source tree's"
echo "headers: $(wc -l < "$work/headers.installed") installed"
grep -l 'cglm' "$prefix"/include/tress/*.h && fail "cglm appears in an installed header"

libdir=$(cd "$(dirname "$(find "$prefix" -name tressConfig.cmake -path "*/cmake/tress/*")")/../.." && pwd)
targets="tress::core;tress::sim;tress::sim_uv;tress::io;tress::springs;tress::rig;tress::protocol;tress::client"

# consumer 1: find_package(tress), tress::sim only
cmake -S "$src/tests/install/find_package" -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" \
  "-DTRESS_EXPECT_TARGETS=$targets" >/dev/null
cmake --build "$work/fp" -v > "$work/fp.log" 2>&1 || { cat "$work/fp.log"; fail "find_package consumer did not build"; }
LD_LIBRARY_PATH=$libdir "$work/fp/chain" || fail "find_package consumer: the chain did not move"

# consumer 2: pkg-config (--static for a static install, as static linking requires)
export PKG_CONFIG_PATH=$libdir/pkgconfig
static_flag=""; [ "$shared" = OFF ] && static_flag=--static
for pc in tress-core tress-sim tress-sim-uv tress-io tress-springs tress-rig tress-protocol tress-client; do
  pkg-config --exists $static_flag "$pc" || fail "pkg-config $static_flag $pc: $(pkg-config --print-errors --exists $static_flag $pc 2>&1)"
done
libs=$(pkg-config $static_flag --cflags --libs tress-sim)
echo "pkg-config $static_flag tress-sim: $libs"
cc -std=c11 -o "$work/chain_pc" "$src/tests/install/chain.c" $libs
LD_LIBRARY_PATH=$libdir "$work/chain_pc" || fail "pkg-config consumer: the chain did not move"

# the sim alone pulls in no networking (ENet), event loop (libuv) or JSON (cJSON) library;
# libsodium comes with tress::core (its mesh hash) and is allowed.
banned='enet|libuv|cjson'
if [ "$shared" = ON ]; then
  LD_LIBRARY_PATH=$libdir ldd "$work/fp/chain" > "$work/ldd.txt"
  cat "$work/ldd.txt"
  grep -Eiq "$banned" "$work/ldd.txt" && fail "tress::sim alone loads $(grep -Ei "$banned" "$work/ldd.txt")"
  # visibility: only tress_<name> leaves a shared library, never tress__<internal>, except the
  # internals cmake/tress_exports.map lends from one component to another (core -> sim, io -> springs)
  lent='^tress__(scene_layout_epoch|scene_scale_epoch|bone_slot_arrays|bone_slot|scene_order_bones|scene_animated_bones|part_cframe_slot|gltf_doc_open|gltf_doc_close)$'
  for so in "$libdir"/libtress-*.so; do
    exported=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^$')
    bad=$(echo "$exported" | grep -Ev '^tress_[a-z0-9]' | grep -Ev "$lent" || true)
    [ -z "$bad" ] || fail "$(basename "$so") exports non-API symbols: $(echo $bad | head -c 400)"
    echo "$(basename "$so"): $(echo "$exported" | wc -l) symbols exported, all tress_*"
  done
  readelf -d "$libdir/libtress-sim.so" | grep SONAME
else
  link_line=$(grep -E -- '-o chain ' "$work/fp.log" || true)
  [ -n "$link_line" ] || fail "no link line in the find_package consumer's build log"
  echo "link line: $link_line"
  echo "$link_line" | grep -Eiq -- "-l(enet|uv|cjson)|lib(enet|uv|cjson)" && fail "tress::sim alone links a banned library"
  nm "$work/fp/chain" | grep -Eq ' (enet_|uv_|cJSON_)' && fail "tress::sim alone carries ENet/libuv/cJSON code"
fi
echo "install test ($kind): ok"
