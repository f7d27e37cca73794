/* gltf_validator.h - the Khronos glTF validator (npm gltf-validator), installed once into the
 * build directory ($TRESS_BINARY_DIR/npm) for the tests that validate what tress writes. */
#ifndef TRESS_TEST_GLTF_VALIDATOR_H
#define TRESS_TEST_GLTF_VALIDATOR_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the npm prefix into prefix; true when the validator is (or could now be) installed
 * there, false without TRESS_BINARY_DIR, node or npm (the caller skips). */
bool gltf_validator_ready(char *prefix, size_t cap);

#endif
