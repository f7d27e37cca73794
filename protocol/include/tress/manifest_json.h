/* tress/manifest_json.h - a character manifest as JSON: the format bots and operators write
 * under assets/characters/ (one .json per character), loaded into (and saved from) a tress_wire_manifest. */
#ifndef TRESS_MANIFEST_JSON_H
#define TRESS_MANIFEST_JSON_H

#include <stddef.h>

#include "tress/result.h"
#include "tress/msg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format (every key but "character" optional; lengths in units, rotations x y z w):
 * {
 *   "character": "Ava",
 *   "parts": [{"name": "Head", "size": [2,1,1], "position": [0,4.5,0], "rotation": [0,0,0,1]}],
 *   "accessories": [{
 *     "name": "LongHair", "type": "Hair", "mesh": "meshes/hair_long.glb",
 *     "handle_size": [2,2,2], "position": [0,4.8,0], "rotation": [0,0,0,1],
 *     "joint": "Weld" | "Motor6D" | "RigidConstraint" | "WeldConstraint",
 *     "c0": {"position": [..], "rotation": [..]}, "c1": {...},
 *     "worn_on": "Head", "layered": false, "has_bones": false }],
 *   "chain_settings": {"damping": 0.92, "stiffness": 0.1, "gravity_scale": 1, "wind_scale": 1},
 *   "accessory_settings": {"damping": 0.9, "stiffness": 0.08, "gravity_scale": 0.4,
 *                          "wind_scale": 1, "max_swing_degrees": 25},
 *   "rig": {"sectors": 3, "segments": 3, "max_influences": 2, "axis": [0,-1,0], "root": [x,y,z]},
 *   "springs": {   (becomes the springs section, tag 1, that BIND relays: tress/wire_springs.h)
 *     "colliders": [{"shape": "sphere" | "capsule", "attach": "Head" (a part or bone; "" = world),
 *                    "offset": [x,y,z], "tail": [x,y,z] (capsules only), "radius": r}],
 *     "chains": [{"root": "" (every chain of the character) | "BoneName",
 *                 "damping", "stiffness", "gravity_scale", "wind_scale", "radius", "end_length",
 *                 "wind_gust", "wind_frequency", "weight" (defaults: tress_default_chain_settings),
 *                 "enabled": true, "colliders": [0, 1] (indices into springs.colliders)}] }
 * }
 * The springs section obeys the codec's rules (the same message on refusal). Other extension
 * sections are not expressible in JSON and are never written. A "$schema" string key is allowed
 * at the top (protocol/manifest.schema.json describes this format).
 *
 * Strict: any other key, or a key given twice, is refused. Every error starts with the JSON
 * path of what is wrong ("$.accessories[0].handle_sise: unknown key (did you mean
 * \"handle_size\"?)"); a syntax error with "line L, column C"; a file's errors with its path. */

/* Parses text into *out (arrays malloc'd; release with tress_manifest_json_free). Validates
 * what the wire would (via the codec), so a manifest that loads is one the server accepts.
 * Returns 0, or the error code with err (may be NULL) filled and *out empty. */
int tress_manifest_json_parse(const char *text, size_t len, tress_wire_manifest *out, tress_error *err);
int tress_manifest_json_load(const char *path, tress_wire_manifest *out, tress_error *err);
/* A malloc'd, pretty-printed JSON string; NULL on allocation failure. */
char *tress_manifest_json_print(const tress_wire_manifest *m);
int tress_manifest_json_save(const char *path, const tress_wire_manifest *m, tress_error *err);
void tress_manifest_json_free(tress_wire_manifest *m);

#ifdef __cplusplus
}
#endif

#endif
