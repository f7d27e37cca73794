/* tress/scene.h - the instance tree both server and client build characters in.
 * Instances are addressed by generational ids, so a stale id is detected, never dereferenced. */
#ifndef TRESS_SCENE_H
#define TRESS_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/math.h"
#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An instance id, as in Box2D v3: index1 is one-based so a zeroed id is null
 * (`tress_id id = {0};`); generation catches reuse of a slot; owner is the tag of the scene that
 * made it, so a scene refuses another scene's id (false / identity / nothing done, exactly as for
 * a stale id) instead of acting on whatever lives in that slot here. */
typedef struct tress_id {
  uint32_t index1;
  uint32_t generation;
  uint32_t owner;
} tress_id;

#define TRESS_NAME_MAX 64
#define TRESS_ASSET_ID_MAX 128 /* asset ids a part keeps, NUL included; longer ones are cut */

static inline bool tress_id_is_null(tress_id id) { return id.index1 == 0; }
static inline bool tress_id_is_equal(tress_id a, tress_id b) {
  return a.index1 == b.index1 && a.generation == b.generation && a.owner == b.owner;
}

typedef enum tress_kind {
  TRESS_KIND_ROOT = 0, /* the scene root ("DataModel"); one per scene */
  TRESS_KIND_FOLDER,   /* a plain container (Workspace, a folder) */
  TRESS_KIND_MODEL,
  TRESS_KIND_PART,
  TRESS_KIND_BONE,
  TRESS_KIND_ACCESSORY,
  TRESS_KIND_ATTACHMENT,
  TRESS_KIND_JOINT,
  TRESS_KIND_WRAP_LAYER,
} tress_kind;

const char *tress_kind_name(tress_kind kind); /* "root", "part", "wrap_layer", ...; "unknown" */

typedef enum tress_accessory_type {
  TRESS_ACCESSORY_UNKNOWN = 0,
  TRESS_ACCESSORY_HAIR,
  TRESS_ACCESSORY_HAT,
  TRESS_ACCESSORY_NECK,
  TRESS_ACCESSORY_SHOULDER,
  TRESS_ACCESSORY_FRONT,
  TRESS_ACCESSORY_BACK,
  TRESS_ACCESSORY_WAIST,
  TRESS_ACCESSORY_FACE,
  /* layered-only types: they sit on the body */
  TRESS_ACCESSORY_SHIRT,
  TRESS_ACCESSORY_PANTS,
  TRESS_ACCESSORY_JACKET,
  TRESS_ACCESSORY_SWEATER,
  TRESS_ACCESSORY_SHORTS,
  TRESS_ACCESSORY_LEFT_SHOE,
  TRESS_ACCESSORY_RIGHT_SHOE,
  TRESS_ACCESSORY_DRESS_SKIRT,
  TRESS_ACCESSORY_EYEBROW,
  TRESS_ACCESSORY_EYELASH,
  TRESS_ACCESSORY_TYPE_COUNT
} tress_accessory_type;

/* The host engine's spelling: "Hair", "LeftShoe", ...; "unknown" outside the enum. */
const char *tress_accessory_type_name(tress_accessory_type t);
/* false (and *out untouched) for NULL or a name no type has. */
bool tress_accessory_type_from_name(const char *text, tress_accessory_type *out);

typedef enum tress_joint_kind {
  TRESS_JOINT_WELD = 0,
  TRESS_JOINT_MOTOR6D,
  TRESS_JOINT_RIGID_CONSTRAINT,
  TRESS_JOINT_WELD_CONSTRAINT,
} tress_joint_kind;

/* "Weld", "Motor6D", "RigidConstraint", "WeldConstraint"; "unknown" outside the enum. */
const char *tress_joint_kind_name(tress_joint_kind kind);
bool tress_joint_kind_from_name(const char *text, tress_joint_kind *out); /* false for NULL or unknown */

typedef struct tress_joint {
  tress_joint_kind kind;
  tress_id part0, part1;             /* Weld, Motor6D, WeldConstraint */
  tress_xform c0, c1;                /* Weld, Motor6D: part0 * c0 == part1 * c1 */
  tress_id attachment0, attachment1; /* RigidConstraint */
  bool enabled;
} tress_joint;

typedef struct tress_mesh tress_mesh;
typedef struct tress_scene tress_scene;

typedef enum tress_event {
  TRESS_EVENT_DESTROYING = 1,       /* fired on every instance of a destroyed subtree, deepest last */
  TRESS_EVENT_ANCESTRY_CHANGED = 2, /* fired on every instance of a reparented subtree */
} tress_event;

const char *tress_event_name(tress_event event); /* "destroying", "ancestry_changed"; "unknown" */

/* A listener may destroy instances, connect or disconnect listeners. */
typedef void (*tress_listener_fn)(tress_scene *scene, tress_id instance, tress_event event, void *user);

/* A listener's id: the same grammar as tress_id (zeroed = none, owner = the scene's tag). */
typedef struct tress_connection {
  uint32_t index1;
  uint32_t generation;
  uint32_t owner;
} tress_connection;

/* What tress_scene_create makes: take tress_default_scene_def() and change the fields that
 * matter. The capacities are sizes, not limits: storage for that many is made at create, so a
 * scene that stays within them never allocates to add an instance or a listener, or in
 * tress_scene_solve_joints (a per-frame call); past them storage grows (doubling). A name or
 * asset id is kept in the instance up to 15 bytes; a longer one takes one heap copy. */
typedef struct tress_scene_def {
  uint32_t instance_capacity; /* instances, the root included (64); at least 1 is made */
  uint32_t listener_capacity; /* tress_instance_connect listeners (64) */
  uint32_t joint_capacity;    /* TRESS_KIND_JOINT instances among them (16): kept apart, so the
                                 others do not each carry a joint's 160 bytes */
  uint32_t part_capacity;     /* TRESS_KIND_PART instances among them (16): a part's mesh, asset id
                                 and sizes are kept apart the same way (64 bytes a part) */
  uint32_t bone_capacity;     /* TRESS_KIND_BONE instances among them (64): a bone's animated
                                 input and transform output are kept apart too (68 bytes a bone) */
} tress_scene_def;

tress_scene_def tress_default_scene_def(void);
/* NULL for a NULL def or when memory runs out. */
tress_scene *tress_scene_create(const tress_scene_def *def);
void tress_scene_destroy(tress_scene *scene);
/* Bytes the scene holds for its instances, bone slots and listeners (allocated capacity; a
 * part's mesh is not counted). 0 for NULL. */
size_t tress_scene_get_memory_bytes(const tress_scene *scene);
tress_id tress_scene_get_root(const tress_scene *scene);
uint32_t tress_scene_get_instance_count(const tress_scene *scene);

/* What tress_scene_create_instance makes: take tress_default_instance_def() and change the
 * fields that matter. The scene copies what it keeps. */
typedef struct tress_instance_def {
  tress_kind kind;     /* TRESS_KIND_FOLDER; TRESS_KIND_ROOT is refused (one per scene) */
  const char *name;    /* copied, cut to TRESS_NAME_MAX - 1 bytes; NULL = "" */
  tress_id parent;     /* null = detached, outside the scene */
  tress_xform cframe;  /* identity: a part's world cframe, a bone's rest or an attachment's frame
                          relative to its parent; other kinds ignore it */
  float size[3];       /* a part's size, (1, 1, 1); other kinds ignore it */
} tress_instance_def;

tress_instance_def tress_default_instance_def(void);
/* Creates an instance under def->parent; *out (may be NULL) gets its id, or a null id on failure.
 * TRESS_ERR_INVALID_ARGUMENT (NULL scene or def, the root kind or no such kind), _STALE_ID or
 * _WRONG_OWNER for the parent, _OUT_OF_MEMORY. */
tress_result tress_scene_create_instance(tress_scene *scene, const tress_instance_def *def, tress_id *out);
/* Destroys the instance and its subtree; fires DESTROYING on each. Stale ids are ignored. A
 * subtree of up to 16 instances is listed without allocating, so it is always destroyed; out of
 * memory for the list of a larger one destroys nothing. */
void tress_instance_destroy(tress_scene *scene, tress_id id);
bool tress_instance_is_valid(const tress_scene *scene, tress_id id);
tress_kind tress_instance_get_kind(const tress_scene *scene, tress_id id);
/* Copies the name into out ("" for a stale id or another scene's). */
void tress_instance_get_name(const tress_scene *scene, tress_id id, char out[TRESS_NAME_MAX]);
void tress_instance_set_name(tress_scene *scene, tress_id id, const char *name);
tress_id tress_instance_get_parent(const tress_scene *scene, tress_id id);
/* Reparent (null = detach). Refuses cycles, the root, and (out of memory for the list of who to
 * tell, past 16 instances) what it could not announce: false, and nothing moved. Fires
 * ANCESTRY_CHANGED. */
bool tress_instance_set_parent(tress_scene *scene, tress_id id, tress_id parent);
tress_id tress_instance_get_first_child(const tress_scene *scene, tress_id id);
tress_id tress_instance_get_next_sibling(const tress_scene *scene, tress_id id);
tress_id tress_instance_find_child(const tress_scene *scene, tress_id id, const char *name);
tress_id tress_instance_find_child_of_kind(const tress_scene *scene, tress_id id, tress_kind kind);
bool tress_instance_is_descendant_of(const tress_scene *scene, tress_id id, tress_id ancestor);
/* True while the instance is connected to the scene root ("in the DataModel"). */
bool tress_instance_is_in_scene(const tress_scene *scene, tress_id id);
/* Pre-order walk of the subtree below id (id itself excluded); stop by returning false. The walk
 * lists the subtree first (fn may change the scene; up to 16 instances without allocating):
 * TRESS_ERR_OUT_OF_MEMORY when it cannot, and fn is not called; TRESS_ERR_STALE_ID for a stale id. */
typedef bool (*tress_visit_fn)(tress_scene *scene, tress_id id, void *user);
tress_result tress_instance_visit_descendants(tress_scene *scene, tress_id id, tress_visit_fn fn, void *user);

tress_connection tress_instance_connect(tress_scene *scene, tress_id id, tress_listener_fn fn, void *user);
void tress_connection_disconnect(tress_scene *scene, tress_connection c);

/*
 * Scale. Every instance has one (1, 1, 1 by default); it scales the local offsets of everything
 * below it: a bone's or attachment's translation (cframe x transform) is taken in the composed
 * scale of its ancestors, so the world queries below (bone, attachment, instance world) place a
 * scaled character's bones and attachments at its size. Rotations are never scaled, and a part's
 * cframe is world already (the game places parts; their sizes are its business). The composed
 * (world) scale is the per-axis product over the instance and its ancestors: exact for uniform
 * scales, a lossy scale otherwise. Simulation accepts uniform scales only (tress/sim.h).
 */
#define TRESS_SCALE_UNIFORM_TOLERANCE 1e-5f /* relative difference of the axes that still counts as uniform */
static inline bool tress_scale_is_uniform(const float s[3]) {
  float hi = fmaxf(s[0], fmaxf(s[1], s[2])), lo = fminf(s[0], fminf(s[1], s[2]));
  return hi - lo <= TRESS_SCALE_UNIFORM_TOLERANCE * hi;
}
/* False (nothing set) for a stale id or a component that is not finite and positive. */
bool tress_instance_set_scale(tress_scene *scene, tress_id id, const float scale[3]);
/* Its own scale ((1, 1, 1) for a stale id). */
void tress_instance_get_scale(const tress_scene *scene, tress_id id, float out[3]);
/* The composed scale of id and its ancestors into out; true when every one of them is uniform
 * (then out's axes are equal and exact). A stale id gives (1, 1, 1) and true. */
bool tress_instance_get_world_scale(const tress_scene *scene, tress_id id, float out[3]);

/* Parts: world cframe, size; an optional mesh (owned by the part, released when it is destroyed). */
tress_xform tress_part_get_cframe(const tress_scene *scene, tress_id part);
void tress_part_set_cframe(tress_scene *scene, tress_id part, tress_xform cframe);
void tress_part_get_size(const tress_scene *scene, tress_id part, float out[3]);
void tress_part_set_size(tress_scene *scene, tress_id part, const float size[3]);
/* The part takes a reference; passing NULL clears the mesh. mesh_size is the mesh bounds size. */
void tress_part_set_mesh(tress_scene *scene, tress_id part, tress_mesh *mesh);
tress_mesh *tress_part_get_mesh(const tress_scene *scene, tress_id part);
void tress_part_get_mesh_size(const tress_scene *scene, tress_id part, float out[3]);
/* Asset id the mesh came from (the permission gate's key); "" when none. */
void tress_part_set_asset_id(tress_scene *scene, tress_id part, const char *asset_id);
void tress_part_get_asset_id(const tress_scene *scene, tress_id part, char out[TRESS_ASSET_ID_MAX]);

/* Bones: cframe is the rest transform relative to the parent part or bone; animated is the
 * animation input; transform is the slot the renderer reads (the solver's output). */
tress_xform tress_bone_get_cframe(const tress_scene *scene, tress_id bone);
void tress_bone_set_cframe(tress_scene *scene, tress_id bone, tress_xform cframe);
tress_xform tress_bone_get_animated(const tress_scene *scene, tress_id bone);
/* Also shows the value in transform while no handle simulates the bone. */
void tress_bone_set_animated(tress_scene *scene, tress_id bone, tress_xform animated);
tress_xform tress_bone_get_transform(const tress_scene *scene, tress_id bone);
void tress_bone_set_transform(tress_scene *scene, tress_id bone, tress_xform transform);
bool tress_bone_is_simulated(const tress_scene *scene, tress_id bone);
void tress_bone_set_simulated(tress_scene *scene, tress_id bone, bool simulated);
/* Rest world pose: parent world * cframe, ignoring every transform (the seed's WorldCFrame). */
tress_xform tress_bone_get_world_rest(const tress_scene *scene, tress_id bone);
/* Drawn pose: composed with every ancestor's and its own transform (TransformedWorldCFrame). */
tress_xform tress_bone_get_world(const tress_scene *scene, tress_id bone);
/* Animated pose: composed with every ancestor's and its own animated value. */
tress_xform tress_bone_get_world_animated(const tress_scene *scene, tress_id bone);
/* World pose of a part or bone (the frame a child bone or attachment hangs from). */
tress_xform tress_instance_get_world(const tress_scene *scene, tress_id id);

/* Accessories. */
tress_accessory_type tress_accessory_get_type(const tress_scene *scene, tress_id accessory);
void tress_accessory_set_type(tress_scene *scene, tress_id accessory, tress_accessory_type type);
/* The child part named "Handle", or null. */
tress_id tress_accessory_get_handle(const tress_scene *scene, tress_id accessory);

/* Attachments: cframe relative to the parent part. */
tress_xform tress_attachment_get_cframe(const tress_scene *scene, tress_id attachment);
void tress_attachment_set_cframe(tress_scene *scene, tress_id attachment, tress_xform cframe);
tress_xform tress_attachment_get_world(const tress_scene *scene, tress_id attachment);

/* Joints. A WeldConstraint captures the parts' relative offset when enabled. */
/* Copies the joint's definition into out; false (out untouched) for a stale id or a non-joint. */
bool tress_joint_get_def(const tress_scene *scene, tress_id joint, tress_joint *out);
void tress_joint_set_def(tress_scene *scene, tress_id joint, const tress_joint *def);
void tress_joint_set_enabled(tress_scene *scene, tress_id joint, bool enabled);
void tress_joint_set_offsets(tress_scene *scene, tress_id joint, tress_xform c0, tress_xform c1);
/* The offset a WeldConstraint holds (part0^-1 * part1 at enable time). */
tress_xform tress_joint_get_weld_constraint_offset(const tress_scene *scene, tress_id joint);
/* Restores a captured WeldConstraint offset exactly (a re-enable would re-capture it). */
void tress_joint_set_weld_constraint_offset(tress_scene *scene, tress_id joint, tress_xform offset);
/* Moves `part`, either side of the enabled joint, to where the joint holds it from the other
 * side: Weld/Motor6D part0 * c0 == part1 * c1; RigidConstraint attachment0 and attachment1 meet
 * (a side is an attachment's parent part); WeldConstraint part0^-1 * part1 == its captured
 * offset. False, and nothing moves, when the joint is stale or disabled, part is not one of its
 * sides, or the other side is gone. */
bool tress_joint_place(tress_scene *scene, tress_id joint, tress_id part);
/* Place side 1 from side 0 through one enabled joint, as an engine's joint solver would. */
bool tress_joint_solve(tress_scene *scene, tress_id joint);
/* Solve every enabled joint in creation order (body-side parts first by convention). */
void tress_scene_solve_joints(tress_scene *scene);

#ifdef __cplusplus
}
#endif

#endif
