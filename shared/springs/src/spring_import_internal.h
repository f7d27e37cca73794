/* spring_import_internal.h - the spring import under construction, shared by the importer's
 * files (one per source: spring_vrm1.c, spring_vrm0.c, spring_extras.c, spring_names.c; the node
 * table in spring_nodes.c, chains in spring_chain.c, warnings and JSON helpers in
 * spring_builder.c). Not installed.
 *
 * Invariants the passes keep:
 *  - the node table is read first: a node is "bad" when it is in a cycle, listed as a child by
 *    two parents, or below such a node; nothing is imported from a bad node, and no pass
 *    follows a parent link without a step limit.
 *  - each source only adds what earlier ones left unsaid (extras override VRM fields), so a
 *    node is the root of at most one chain, and a node with colliders gets none from names.
 *  - a warning names the file's own indices and names, so a user can find the part.
 * The unit conversions are derived in tress/spring_import.h. */
#ifndef TRESS_SPRING_IMPORT_INTERNAL_H
#define TRESS_SPRING_IMPORT_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "gltf_document.h"
#include "tress/spring_import.h"

#define STEP_DT (1.0f / 60.0f)
#define EARTH_G 9.81f
#define VRM0_END_LENGTH_M 0.07f
#define MAX_WARNINGS 1000u
#define MAX_COLLIDERS 4096u

typedef struct tress__spring_builder {
  tress_spring_import *imp;
  bool oom;
  float scale; /* units per metre */
  /* per node, so every pass is linear in the file's size (a hostile file cannot make it slow) */
  int32_t *first_child, *next_sibling; /* child lists of the good tree */
  int32_t *root_chain;                 /* the chain rooted here, or -1 */
  uint8_t *in_chain;                   /* a joint of some chain */
  uint32_t *mark;                      /* scratch stamps, one per node */
  uint32_t stamp;
} tress__spring_builder;

/* spring_builder.c: warnings, colliders, node queries, JSON helpers */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tress__spring_warn(tress__spring_builder *b, const char *fmt, ...);
const char *tress__spring_node_name(const tress__spring_builder *b, int32_t i);
tress_spring_collider *tress__spring_collider_add(tress__spring_builder *b);
bool tress__spring_node_has_collider(const tress_spring_import *imp, int32_t node);
int32_t tress__spring_chain_of_root(const tress__spring_builder *b, int32_t node);
bool tress__spring_node_in_any_chain(const tress__spring_builder *b, int32_t node);
bool tress__spring_node_ok(const tress__spring_builder *b, int32_t i);
uint32_t tress__spring_subtree(tress__spring_builder *b, int32_t root, int32_t **out);
bool tress__spring_json_float(const cJSON *obj, const char *key, float *out);
bool tress__spring_json_index(const cJSON *v, int32_t *out);
/* parent's member key when it is an array, else NULL, with a warning naming `what` when the
 * member is there but not an array. cJSON_ArrayForEach also walks an object's members, so a loop
 * over storage sized by cJSON_GetArraySize (0 for an object) walks only what this returns. */
const cJSON *tress__spring_json_list(tress__spring_builder *b, const cJSON *parent, const char *key, const char *what);
bool tress__spring_json_vec(const cJSON *v, float *out, int n);
bool tress__spring_json_xyz(const cJSON *v, float out[3]);

/* spring_chain.c: chains and their per-joint settings */
float tress__spring_joint_link_m(const tress__spring_builder *b, const tress_spring_chain *c, uint32_t i);
float tress__spring_vrm_stiffness_from_pose(float s, float len_m);
void tress__spring_joints_from_chain(const tress__spring_builder *b, tress_spring_chain *c);
tress_spring_chain *tress__spring_chain_add(tress__spring_builder *b, int32_t root, const int32_t *joints, uint32_t joint_count);
void tress__spring_set_all_colliders(tress_spring_chain *c, const tress_spring_import *imp);
void tress__spring_chain_from_vrm_joints(tress__spring_builder *b, tress_spring_chain *c, const float *k, const float *power,
                                         const float (*dir)[3], const float *drag, const float *hit, uint32_t n);
int32_t tress__spring_read_center(tress__spring_builder *b, const char *what, const cJSON *obj);

/* the sources, in the order the importer reads them */
bool tress__spring_read_nodes(tress__spring_builder *b, const tress__gltf_doc *doc); /* false: out of memory */
void tress__spring_read_vrm1(tress__spring_builder *b, const cJSON *ext);
void tress__spring_read_vrm0(tress__spring_builder *b, const cJSON *sec);
void tress__spring_read_extras(tress__spring_builder *b, const cJSON *root, bool *all_colliders);
void tress__spring_read_names(tress__spring_builder *b, bool *all_colliders);

#endif
