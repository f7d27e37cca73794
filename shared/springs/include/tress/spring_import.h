/* tress/spring_import.h - spring chains and colliders read from a model file (.vrm/.glb/.gltf):
 * VRMC_springBone (VRM 1.0), VRM 0.x secondaryAnimation, node extras, then name conventions. */
#ifndef TRESS_SPRING_IMPORT_H
#define TRESS_SPRING_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/collider.h"
#include "tress/result.h"
#include "tress/math.h"
#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the importer reads, in this order (a later source fills only what an earlier one left
 * unsaid, except extras, which win over VRM for the node they are on):
 *
 *  1. VRMC_springBone (VRM 1.0): colliders (sphere / capsule: offset, radius, tail), collider
 *     groups, springs (joints with their own settings, `center`). A spring becomes a chain on
 *     its first joint: that node is held, the ones below it move. Its collider set is the union
 *     of its collider groups. If the file has no VRMC_springBone, VRM 0.x
 *     `extensions.VRM.secondaryAnimation` is read instead (boneGroups, colliderGroups): every
 *     listed bone is a chain root with all of its descendants and a 7 cm end tip (UniVRM and
 *     three-vrm give VRM 0.x leaves one). VRM 0.x collider offsets are in Unity's axes; they are
 *     turned into glTF's as three-vrm's VRMSpringBoneLoaderPlugin does it: (x, y, -z). Its
 *     gravityDir is used as written (three-vrm converts nothing there either).
 *  2. Node extras: `extras.estella.springBone` {stiffness, drag, gravity, radius, endLength} on
 *     a chain root (overrides the VRM chain there, or makes a chain of the node and everything
 *     below it), `extras.estella.springCollider` {shape, radius, height, offset} on a collider
 *     node (replaces the VRM colliders of that node, or adds one): the spring-bones seed's keys.
 *     `extras.tress.*` is read as an alias where `estella` says nothing. stiffness and drag are
 *     in our units (below); gravity is m/s^2 ([x, y, z], or one number = straight down); sizes
 *     are in the model's metres.
 *  3. Names, for nodes neither of the above spoke of: `Hair_<region>_<chain>_00` with nodes
 *     below it is a chain of it and everything below it; `SBC_Sphere_<name>_r<cm>` a sphere
 *     collider, `SBC_Capsule_<name>_r<cm>_h<cm>` a capsule along the node's local +Y (radius,
 *     distance between end centres, centimetres). The region picks a preset (see
 *     tress_spring_region_get_preset). Chains made from extras or names are kept out of every
 *     collider the model has; VRM chains keep their groups.
 *
 * Scale. tress bones carry no scale, so the import bakes each node's composed (world) scale in:
 * a node's translation is scaled by its parent's world scale, and everything measured in a
 * node's frame (collider offsets, tails, radii, heights; a joint's hitRadius and end tip) by
 * that node's world scale. A spring under a node scaled 0.25 is a quarter as long, with
 * colliders a quarter the size. Non-uniform scale is not modelled: the mean of the three
 * factors is used and a warning names the node.
 *
 * Units. Lengths in the file are metres; they are multiplied by def.units_per_metre (default
 * 1 / 0.28: one of our units is a stud, 0.28 m, like the rest of the sim's defaults). Our
 * stiffness is the fraction of the way to the animated pose a node is pulled per 60 Hz step
 * (0..1); our drag is the fraction of velocity lost per step (damping = 1 - drag).
 *
 * VRM -> ours (VRM's spring runs once per frame, dt = 1/60 s here):
 *  - dragForce: VRM's verlet keeps (1 - dragForce) of the velocity each frame, exactly as our
 *    integrate keeps `damping` of it: drag = dragForce, damping = 1 - dragForce.
 *  - stiffness k: VRM adds k * dt metres along the rest direction (a unit vector) to the bone's
 *    tail each frame, then puts the tail back at the bone length L. For a small deviation
 *    angle a that turns the bone by about k * dt * a / L, i.e. closes the fraction k * dt / L
 *    of the deviation, which is what our stiffness s does per step. So
 *        s = 1 - exp(-k * dt / L),   dt = 1/60, L = the joint's world link length in metres,
 *    which equals k * dt / L for small values and never exceeds 1 for stiff, short bones.
 *    k itself is kept as rest_stiffness (units/s) for the VRM spring model.
 *  - gravityPower p, gravityDir d: VRM adds d * p * dt metres per frame to the tail, which its
 *    verlet carries on as velocity; our integrate adds g * dt^2 per step, so
 *        g = d * p / dt = 60 * p * d  m/s^2  (times units_per_metre), the full direction.
 *  - hitRadius -> radius, times the joint node's world scale.
 *  - end_length: 0 for VRM 1.0 (its last joint is a real tail node).
 * Each joint keeps its own values (tress_spring_joint_settings); the chain's single values are
 * the means over the moving joints (radius: the largest), for a solver with one set per chain.
 *
 * Bad input never aborts the import of the rest: node children out of range, nodes listed by
 * two parents, cycles in the node tree (those nodes and everything below them are "bad":
 * nothing is imported from them), joint / collider / group indices out of range, negative or
 * non-finite radii, capsules with no length, springs of fewer than two joints or whose joints
 * are not a parent-child chain or that would also move nodes they do not name, chain roots
 * with nothing below them: each is a warning and that part is skipped. So is every part of a
 * file that is read but not imported (an unusable extended collider or rotation limit, a VRM 0.x block
 * next to a VRM 1.0 one, unknown extras fields, an unknown specVersion): a warning names it.
 */

#define TRESS_SPRING_WARNING_MAX 200
/* Files larger than this are refused before parsing. */
#define TRESS_SPRING_MAX_FILE_BYTES (512u * 1024u * 1024u)

typedef enum tress_spring_source {
  TRESS_SPRING_FROM_VRM1 = 0,
  TRESS_SPRING_FROM_VRM0,
  TRESS_SPRING_FROM_EXTRAS,
  TRESS_SPRING_FROM_NAME,
} tress_spring_source;

const char *tress_spring_source_name(tress_spring_source s);

typedef struct tress_spring_node {
  char name[TRESS_NAME_MAX];
  int32_t parent;    /* -1 for a root */
  tress_xform local; /* translation (units, parent's world scale applied) and rotation (TRS or matrix) */
  float scale;       /* composed (world) uniform scale of the node; 1 when nothing is scaled */
  bool bad;          /* in a cycle, listed by two parents, or below such a node */
} tress_spring_node;

typedef struct tress_spring_collider {
  tress_collider_shape shape;
  int32_t node;    /* the node it is attached to */
  float offset[3]; /* sphere centre / first end centre, node frame, units */
  float tail[3];   /* capsule: second end centre (equal to offset for a sphere) */
  float radius;    /* units */
  float height;    /* capsule: distance between the end centres; 0 for a sphere */
  float normal[3]; /* plane (VRMC_springBone_extended_collider): unit normal, node frame */
  tress_spring_source source;
} tress_spring_collider;

/* One joint's own settings, parallel to tress_spring_chain.joints. VRM applies joint i's
 * settings to the segment from joints[i] to its tail (its child), so for a VRM 1.0 spring the
 * last joint's values are the file's but VRM moves nothing with them. */
typedef struct tress_spring_joint_settings {
  float stiffness;      /* pose model: 0..1 pull toward the animated pose per 60 Hz step */
  float rest_stiffness; /* VRM model: units/s the tail is pushed along its rest direction */
  float drag;           /* 0..1 velocity lost per step */
  float gravity[3];     /* units/s^2, full direction (VRM: gravityDir * gravityPower * 60) */
  float radius;         /* hit radius of the joint's tail, units, world scale applied */
} tress_spring_joint_settings;

typedef struct tress_spring_chain {
  int32_t root;         /* the held node */
  uint32_t joint_count; /* the root and every node it moves, parents first */
  int32_t *joints;
  tress_spring_joint_settings *joint_settings; /* joint_count of them */
  int32_t center;       /* VRM `center`: the node whose space the spring runs in; -1 = world */
  float stiffness;      /* 0..1 pull toward the animated pose per 60 Hz step (mean of the joints) */
  float drag;           /* 0..1 velocity lost per step (mean) */
  float damping;        /* 1 - drag: tress_chain_settings.damping */
  float gravity[3];     /* units/s^2 (mean) */
  float radius;         /* strand radius, units (the joints' largest) */
  float end_length;     /* virtual tip on leaf nodes, units; 0 = none */
  tress_collider_set colliders; /* indices into the import's colliders */
  char region[32];      /* a name-made chain's region ("Fringe"); "" otherwise */
  tress_spring_source source;
  tress_vrm_length vrm_length; /* VRM springs: the import def's (tress_chain_settings.vrm_length) */
  /* VRM springs: each joint's own values for the VRM spring model (parallel to joints: VRM's
   * stiffness and gravityPower in units/s, damping = 1 - dragForce, gravityDir, hitRadius in
   * units, and a VRM 1.0 joint's VRMC_springBone_limit-1.0 draft rotation limit); NULL for the
   * other sources. The values above are the pose model's equivalents. */
  tress_joint_settings *vrm_joints;
} tress_spring_chain;

typedef struct tress_spring_import {
  tress_spring_node *nodes;
  uint32_t node_count;
  tress_spring_chain *chains;
  uint32_t chain_count, chain_cap;
  tress_spring_collider *colliders;
  uint32_t collider_count, collider_cap;
  char (*warnings)[TRESS_SPRING_WARNING_MAX];
  uint32_t warning_count, warning_cap;
  float units_per_metre;
} tress_spring_import;

typedef struct tress_spring_import_def {
  float units_per_metre; /* 1 / 0.28 (studs) */
  bool read_vrm;         /* VRMC_springBone, else VRM 0.x secondaryAnimation */
  bool read_extras;
  bool read_names;
  /* How VRM springs measure their joints' lengths (sim.h): TRESS_VRM_LENGTH_FIXED, as the
   * specification and UniVRM do; TRESS_VRM_LENGTH_THREE_VRM for a model meant to move exactly as
   * it does in three-vrm. */
  tress_vrm_length vrm_length;
} tress_spring_import_def;

tress_spring_import_def tress_default_spring_import_def(void);

/* Starting values a name's region picks (stiffness, drag). Unknown regions get the seed's
 * defaults (0.1, 0.5) and false. */
bool tress_spring_region_get_preset(const char *region, float *stiffness, float *drag);

/* Parses a .glb (12-byte header, JSON chunk, BIN chunk; detected by its magic) or a .gltf
 * (JSON text). Returns 0 and *out (free with tress_spring_import_free), with warnings for the
 * parts that were skipped; the error code and err (may be NULL) when the file is not glTF at all
 * or memory ran out. */
int tress_spring_import_read_memory(const uint8_t *data, size_t size, const tress_spring_import_def *def,
                                    tress_spring_import **out, tress_error *err);
int tress_spring_import_load(const char *path, const tress_spring_import_def *def, tress_spring_import **out,
                             tress_error *err);
void tress_spring_import_free(tress_spring_import *imp);

/* Index of the first node with this name, or -1. */
int32_t tress_spring_import_find_node(const tress_spring_import *imp, const char *name);

/* The sim's settings for an imported chain: damping and stiffness as they are, wind scale 1,
 * and the chain's gravity as a scale of the sim's gravity (its component along the sim's
 * gravity direction: the sim has one gravity direction, so a sideways part is dropped). */
tress_chain_settings tress_spring_chain_get_settings(const tress_spring_chain *chain, const float sim_gravity[3]);

/*
 * Applying an import to a scene: every node a chain or collider needs (joints, collider nodes
 * and their ancestors) becomes a bone under `part`, nested as in the file, with the node's
 * local transform as its cframe. A bone already under the part with the node's name is used
 * as it is instead (a rig that has the skeleton already). Bad nodes are never built.
 * colliders[i] is import collider i as a tress_collider_def attached to its node's bone.
 */
typedef struct tress_spring_scene {
  uint32_t node_count;
  tress_id *node_bones; /* per import node; null for a node nothing needed */
  uint32_t collider_count;
  tress_collider_def *colliders;
} tress_spring_scene;

/* Returns 0, or the error code and err (may be NULL); a failure leaves the scene as it was. */
int tress_spring_import_apply(const tress_spring_import *imp, tress_scene *scene, tress_id part,
                              tress_spring_scene *out, tress_error *err);
void tress_spring_scene_free(tress_spring_scene *s);

#ifdef __cplusplus
}
#endif

#endif
