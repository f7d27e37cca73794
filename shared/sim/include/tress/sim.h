/* tress/sim.h - one simulation, three writers: bone chains, part chains, accessory pendulums.
 * Fixed-step verlet with a hitch clamp, camera culling, a chain budget, sleep and a teleport guard. */
#ifndef TRESS_SIM_H
#define TRESS_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/collider.h"
#include "tress/jobs.h"
#include "tress/math.h"
#include "tress/result.h"
#include "tress/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tress_sim tress_sim;

/* Ids of things inside a sim (handles, colliders), as in Box2D v3: a one-based index1 (a zeroed
 * id is null: `tress_handle_id h = {0};`), a generation that catches reuse of a slot, and the
 * owner tag of the sim that made it, so an id from another sim is refused with
 * TRESS_ERR_WRONG_OWNER (or false from an _is_ question) instead of naming something else. */
typedef struct tress_handle_id {
  uint32_t index1;
  uint32_t generation;
  uint32_t owner;
} tress_handle_id;

static inline bool tress_handle_is_null(tress_handle_id h) { return h.index1 == 0; }

/* Who the sim runs for: client defaults come from the device budget, server ones are static. */
typedef enum tress_sim_role {
  TRESS_SIM_CLIENT = 0,
  TRESS_SIM_SERVER,
} tress_sim_role;

const char *tress_sim_role_name(tress_sim_role role); /* "client", "server"; "unknown" */

/* Sampled once per step() call and reused across that frame's substeps. out is world units/s^2. */
typedef void (*tress_wind_fn)(void *user, double sim_time, float out[3]);
/* Replaces the distance check entirely. root is the bound part, accessory or first part. */
typedef bool (*tress_should_simulate_fn)(void *user, const tress_scene *scene, tress_id root);
/* The loop adapter's hook: called with true when the first handle binds and false when the
 * last one goes (the seed's Heartbeat connection). */
typedef void (*tress_loop_fn)(void *user, tress_sim *sim, bool needed);
typedef struct tress_sim_def {
  tress_scene *scene;
  tress_sim_role role;
  float units_per_stud;  /* 1 = the seed's studs; scales gravity, teleport, cull distance, lever */
  float gravity[3];      /* (0, -30, 0) studs/s^2, scaled by units_per_stud */
  tress_wind_fn wind;    /* NULL: use ambient_wind */
  void *wind_user;
  float ambient_wind[3]; /* direction * strength; gusts between about 0.1x and 1x; zero = still */
  float fixed_hz;        /* 60 */
  int max_substeps;      /* 3 */
  float max_distance;    /* < 0: role default (client: device profile, server: 100 studs) */
  int max_chains;        /* < 0: role default (client: device profile, server: 20) */
  tress_should_simulate_fn should_simulate;
  void *should_simulate_user;
  float device_compute;  /* client profile Compute in [0.25, 4]; <= 0 runs the device bench once */
  /* The game's job system (tress/jobs.h; zeros: everything on the calling thread). Culling's
   * root reads, the colliders' resolve to world and their per-chain lanes, and the chain tiles,
   * pendulums, ropes and cloth of a step run on it (should_simulate is always called on the
   * stepping thread); results are the same bits with any
   * worker count. worker_count is clamped to [1, TRESS_JOBS_MAX_WORKERS] (1 without enqueue_task)
   * and the per-worker scratch is made at create. */
  tress_jobs jobs;
  bool enable_profile;   /* false: tress_sim_get_profile reads zeros and step reads no clock */
  /* true: ropes run one at a time and cloth through its generic constraint lists instead of the
   * interleaved rope lanes and grid stencils: the same results, slower. A switch for benchmarks
   * and tests that compare the two (as Box2D's enableWarmStarting); games leave it false. */
  bool reference_particle_paths;
  /* Bone and part chains (0: none made ahead). A size, not a limit, as the scene's capacities
   * are: the chain slots and the handle registry for that many are made at create, so binding
   * within it never regrows them (each chain's nodes still take their own storage); past it
   * they grow (doubling). A game that knows its cast sets it to skip the doubling's slack. */
  uint32_t chain_capacity;
} tress_sim_def;

/* A collider the sim owns (tress_sim_create_collider); the same id grammar as tress_handle_id. */
typedef struct tress_collider_id {
  uint32_t index1;
  uint32_t generation;
  uint32_t owner;
} tress_collider_id;

static inline bool tress_collider_is_null(tress_collider_id c) { return c.index1 == 0; }

#define TRESS_CHAIN_COLLIDERS_MAX 32

/*
 * Chain settings. The first four are the seed's; the rest are the spring-bone additions (issue
 * 9), whose defaults change nothing, so a caller that starts from tress_default_chain_settings()
 * and sets only the first four gets the seed's solver.
 * - radius, colliders: after the link constraint each node is pushed out of every collider in
 *   the chain's set by (collider radius + radius), parents first, link length kept (kept in
 *   front of a plane by radius, within an inside shape by collider radius - radius).
 * - end_length: bone chains only; every leaf bone gets a virtual tip that long (along its
 *   parent-to-leaf direction, +Y for a lone root) so the leaf aims at it and swings. 0: a leaf
 *   keeps its parent's swing and turns no further (it has no child to aim at).
 * - wind_gust, wind_frequency: the wind on a node is scaled by 1 + gust * sin(2 pi f (t -
 *   depth * TRESS_GUST_DELAY)): a bone meets each gust TRESS_GUST_DELAY seconds after the one
 *   above it, so the strand ripples. t is sim time, so every client agrees.
 * - weight: 0 shows the animation exactly, 1 the full simulation; between, every node's
 *   simulated position is blended toward its animated one before the poses are computed.
 * - enabled: false shows the animation exactly and keeps the chain's state at the animated
 *   pose, so switching it back on starts from rest (no whip).
 */
#define TRESS_GUST_DELAY 0.12f /* seconds from one depth level to the next */

/*
 * Spring models (tress_chain_settings.model). Both run in the same batched solver at the sim's
 * fixed step, with its hitch clamp and render carry, so neither depends on the frame rate.
 * - TRESS_SPRING_POSE: the BonePhysics seed. Roots are pinned and unswung; every other node is
 *   pulled toward its animated world position (stiffness: fraction per step), written at its
 *   simulated position and turned to aim at its first child.
 * - TRESS_SPRING_VRM: VRMC_springBone-1.0. Each node is the tail of its parent joint: its
 *   velocity keeps `damping` (= 1 - VRM dragForce) per step, it moves stiffness * dt toward the
 *   joint's rest direction under the parent's current rotation (VRM stiffnessForce, units/s),
 *   gravity_scale * dt along gravity_dir (VRM gravityPower, units/s), its link length is
 *   restored and it is pushed out of the colliders by (collider radius + radius: VRM
 *   hitRadius), one collider after the other, its length restored after each push (VRM's and
 *   three-vrm's order, tress/collider.h). Every joint that has a tail, the chain's first joint included, is rotated to
 *   aim at it; positions are never written (each bone keeps its animated local translation).
 *   Bone chains only: binding parts with it is TRESS_ERR_INVALID_ARGUMENT.
 */
typedef enum tress_spring_model {
  TRESS_SPRING_POSE = 0,
  TRESS_SPRING_VRM,
} tress_spring_model;

const char *tress_spring_model_name(tress_spring_model m);

/* How the VRM model measures a joint's length (tress_chain_settings.vrm_length; VRM model only).
 * - TRESS_VRM_LENGTH_FIXED: the length at rest (world scale), as VRMC_springBone-1.0 and UniVRM
 *   keep it.
 * - TRESS_VRM_LENGTH_THREE_VRM: as three-vrm (@pixiv/three-vrm-springbone 3.x) measures it on
 *   every update: from the joint's head now to where its child bone was last drawn, with the
 *   chain's anchor where it is now (three-vrm reads the child's world matrix before the child's
 *   own joint has run, so it still holds the last update's local rotations). A moving chain's
 *   tails are kept that far from their heads, and that stretch feeds the next step's inertia;
 *   the heads themselves stay at the rest length (each bone keeps its local translation). Use it
 *   for content that must move as it does in three-vrm. Virtual end tips keep the rest length
 *   (three-vrm measures a childless joint from its own matrix). */
typedef enum tress_vrm_length {
  TRESS_VRM_LENGTH_FIXED = 0,
  TRESS_VRM_LENGTH_THREE_VRM,
} tress_vrm_length;

const char *tress_vrm_length_name(tress_vrm_length m);
bool tress_vrm_length_from_name(const char *text, tress_vrm_length *out);
typedef struct tress_chain_settings {
  float damping;       /* 0.92: velocity kept per step */
  float stiffness;     /* 0.1: pull toward the animated pose per step, 0..1 */
  float gravity_scale; /* 1 */
  float wind_scale;    /* 1 */
  float radius;         /* 0: strand radius kept clear of the colliders, units */
  float end_length;     /* 0: virtual tip on leaf bones, units */
  float wind_gust;      /* 0: 0..1 (1 swings the wind from calm to twice its strength) */
  float wind_frequency; /* 0.5 gusts a second */
  float weight;         /* 1: 0..1, 0 = the animation alone */
  bool enabled;         /* true */
  tress_spring_model model; /* TRESS_SPRING_POSE */
  float gravity_dir[3];     /* VRM model only: (0, 0, 0) = the sim's gravity direction */
  bool rotations_only;      /* false: see below (the VRM model always writes rotations only) */
  tress_id center;          /* null = world: see "Center space" below */
  float center_inertia;     /* 1: 0..1, how much of the center's motion is taken out */
  tress_vrm_length vrm_length; /* TRESS_VRM_LENGTH_FIXED: VRM model only, see above */
  uint32_t collider_count; /* 0: colliders[0..count) are this chain's collider set */
  tress_collider_id colliders[TRESS_CHAIN_COLLIDERS_MAX];
} tress_chain_settings;

/* rotations_only (bone chains; the spring-bones seed's output on the pose model's motion): every
 * bone, the chain's first included, is turned to aim at where its first child has got to and
 * keeps its animated local translation; no position is written, so no bone leaves its parent. */

/* Center space (VRM `center`; any chain, either model): center names an instance the chain's
 * root is, or hangs under (its anchor or an ancestor, e.g. a character's root or hips). Before
 * every substep the chain's current and previous positions are carried rigidly with the
 * center's motion since the last substep, so inertia is measured in the center's frame: a
 * character running, riding or teleporting keeps its hair's local sway instead of flinging it.
 * center_inertia scales that motion (translation scaled, rotation nlerped from identity): 1
 * takes it out fully, 0 leaves world inertia (as a null center does). The reset checks (jump,
 * teleport guard) measure the root's motion in the same frame. A center that is not such an
 * instance is TRESS_ERR_INVALID_ARGUMENT; one destroyed later falls back to world. */

/*
 * Rotation limits (VRMC_springBone_limit-1.0 draft, either model): a joint's limit keeps the
 * direction from the joint to each of its tails inside a shape, after the step's inertia and
 * link (and again after the collider push, so the limit has the last word). The shape lives in
 * the limit's frame: the joint's rest orientation under its parent's current rotation (VRM
 * model: the parent as solved this substep; pose model: the parent's animated rotation turned
 * by the shortest arc from its animated to its simulated incoming link, a pinned root unswung),
 * turned by the shortest arc from +Y to the tail's rest direction, then by `rotation`. In that
 * frame the rest direction is +Y and:
 * - TRESS_LIMIT_CONE: at most `angle` from +Y (pi: free);
 * - TRESS_LIMIT_HINGE: in the YZ plane (swinging about X), at most `angle` from +Y;
 * - TRESS_LIMIT_SPHERICAL: pitch (about X, in the YZ plane) at most `angle`, yaw (toward X)
 *   at most `yaw` (pi/2: free).
 * Angles are radians, clamped to [0, pi] (yaw [0, pi/2]); rotation is a quaternion (x y z w),
 * normalized (zero: identity). The singular directions are resolved as the draft's table says.
 */
typedef enum tress_limit_kind {
  TRESS_LIMIT_NONE = 0,
  TRESS_LIMIT_CONE,
  TRESS_LIMIT_HINGE,
  TRESS_LIMIT_SPHERICAL,
} tress_limit_kind;

const char *tress_limit_kind_name(tress_limit_kind k);
/* false (and *out untouched) for a name that is none of "none", "cone", "hinge", "spherical" */
bool tress_limit_kind_from_name(const char *text, tress_limit_kind *out);

typedef struct tress_joint_limit {
  tress_limit_kind kind; /* TRESS_LIMIT_NONE */
  float angle;           /* 0: cone / hinge angle, spherical pitch (radians) */
  float yaw;             /* 0: spherical only (radians) */
  float rotation[4];     /* (0, 0, 0, 1): the limit's turn from its default frame */
} tress_joint_limit;

/* One joint's own spring values (VRM springs tune every joint): they move the joint's tails
 * (its child bones, or its end tip) in place of the chain's values of the same names, in either
 * model. gravity_dir is used by the VRM model only ((0, 0, 0) = the sim's gravity direction). */
typedef struct tress_joint_settings {
  float stiffness;      /* 0.1 (VRM model: stiffnessForce, 1 is VRM's default) */
  float damping;        /* 0.92 (VRM model: 1 - dragForce) */
  float gravity_scale;  /* 1 (VRM model: gravityPower, units/s) */
  float gravity_dir[3]; /* (0, 0, 0) */
  float radius;         /* 0 (VRM model: hitRadius) */
  tress_joint_limit limit; /* none: see "Rotation limits" above */
} tress_joint_settings;

typedef struct tress_accessory_settings {
  float damping;           /* 0.9 */
  float stiffness;         /* 0.08 */
  float gravity_scale;     /* 0.4 */
  float wind_scale;        /* 1 */
  float max_swing_degrees; /* 25 */
} tress_accessory_settings;

typedef struct tress_sim_stats {
  uint32_t bound;     /* live handles of every kind */
  uint32_t simulated; /* handle-steps simulated in the last frame (3 for one chain after a hitch) */
  uint32_t substeps;  /* substeps run in the last frame */
} tress_sim_stats;

/* Where the last tress_sim_step spent its time, in milliseconds (as Box2D's b2Profile). Filled
 * only when the def's enable_profile is set; otherwise all zero. The chain phases are timed
 * where they really run, tile by tile (each tile's prepare, substeps and output back to back, so
 * prepare pays for bringing the tile into cache), and summed over the tiles: with workers that is
 * the CPU time of every worker, more than the wall time `chains` reads. */
typedef struct tress_sim_profile {
  double step;          /* the whole call */
  double cull;          /* eligibility: distance or should_simulate, then the max_chains budget */
  double chains;        /* bone and part chains, every phase plus the per-frame set-up */
  double chain_prepare; /* scene reads (animated inputs, part frames), animated world poses, snaps */
  double chain_substep; /* integrate, stiffness, link constraint, collider push, every substep */
  double chain_output;  /* the display carry, poses, bone transforms and part frames written */
  double pendulums;     /* accessory pendulums */
  double ropes;         /* ropes and cloth */
} tress_sim_profile;

/* Decides which accessories bind_character swings. */
typedef bool (*tress_accessory_match_fn)(void *user, const tress_scene *scene, tress_id accessory);

/* A whole character: its boned parts as bone chains and its matching accessories as pendulums. */
typedef struct tress_character_def {
  tress_id model;                        /* a Model in the sim's scene */
  tress_chain_settings chains;           /* for every boned part: tress_default_chain_settings() */
  tress_accessory_settings accessories;  /* for every accessory: tress_default_accessory_settings() */
  tress_accessory_match_fn match;        /* NULL: tress_default_accessory_match */
  void *match_user;
} tress_character_def;

tress_sim_def tress_default_sim_def(void);
tress_chain_settings tress_default_chain_settings(void);
tress_accessory_settings tress_default_accessory_settings(void);
tress_joint_settings tress_default_joint_settings(void);
/* The joint settings that move a joint exactly as the chain's settings do (no limit): start
 * here to give one joint of a chain only a limit. */
tress_joint_settings tress_chain_settings_get_joint(const tress_chain_settings *s);
tress_character_def tress_default_character_def(void);
/* The default bindCharacter match: Hair, Hat, Neck, Shoulder, Front, Back, Waist, Unknown. */
bool tress_default_accessory_match(void *user, const tress_scene *scene, tress_id accessory);

tress_sim *tress_sim_create(const tress_sim_def *def);
/* Destroys every handle (poses restored) and stops the loop hook. */
void tress_sim_destroy(tress_sim *sim);
const tress_sim_def *tress_sim_get_def(const tress_sim *sim);

/* Every bone hierarchy under root_part. TRESS_ERR_NOTHING_TO_BIND when it has none; an
 * already bound part returns its existing handle. settings may be NULL for the defaults. */
tress_result tress_sim_bind(tress_sim *sim, tress_id root_part, const tress_chain_settings *settings,
                            tress_handle_id *out);
/* parts[0] is the pin; needs at least one more. Not deduplicated. */
tress_result tress_sim_bind_parts(tress_sim *sim, const tress_id *parts, uint32_t count,
                                  const tress_chain_settings *settings, tress_handle_id *out);
/* A boneless accessory as a swing-clamped pendulum steering the joint that holds it on. */
tress_result tress_sim_bind_accessory(tress_sim *sim, tress_id accessory, const tress_accessory_settings *settings,
                                      tress_handle_id *out);
/* Every boned descendant part of def->model, then every remaining accessory def->match accepts.
 * Idempotent (an already bound part or accessory returns its handle and keeps its settings).
 * A model scaled non-uniformly binds nothing (TRESS_ERR_NON_UNIFORM_SCALE); a part or accessory in it
 * that is, is skipped and the call returns that code after binding the rest.
 * Writes up to max_out handles and the total count to *count. */
tress_result tress_sim_bind_character(tress_sim *sim, const tress_character_def *def, tress_handle_id *out,
                                      uint32_t max_out, uint32_t *count);

/* A bone hierarchy from one root bone down: root_bone is held (pinned to its animated pose,
 * under whatever part or bone it hangs from) and every bone below it moves. This is how an
 * imported spring binds exactly its joints. An already bound root returns its handle. Binding
 * the same bones through tress_sim_bind of their part as well simulates them twice: don't. */
tress_result tress_sim_bind_bone_chain(tress_sim *sim, tress_id root_bone, const tress_chain_settings *settings,
                                       tress_handle_id *out);

/* Colliders, owned by the sim: def is copied (tress_collider_def_is_valid must accept it); it
 * follows def.attach. Chains list the ids they test in their settings. Destroying a collider
 * drops it from every chain's set. A stale id is TRESS_ERR_STALE_ID, another sim's
 * TRESS_ERR_WRONG_OWNER; destroy ignores both. A sim holds at most TRESS_SIM_COLLIDERS_MAX
 * live colliders (collider sets index them in 16 bits); past it create is
 * TRESS_ERR_OUT_OF_MEMORY. */
#define TRESS_SIM_COLLIDERS_MAX 65535u
tress_result tress_sim_create_collider(tress_sim *sim, const tress_collider_def *def, tress_collider_id *out);
void tress_collider_destroy(tress_sim *sim, tress_collider_id id);
bool tress_collider_is_valid(const tress_sim *sim, tress_collider_id id);
/* A live collider's definition, and its world pose through its attach instance's drawn pose now. */
tress_result tress_collider_get_def(const tress_sim *sim, tress_collider_id id, tress_collider_def *out);
tress_result tress_collider_get_world(const tress_sim *sim, tress_collider_id id, tress_collider_world *out);

/*
 * Resets. A chain snaps back to its animated pose (no whip, no velocity) on the next frame when:
 *  - the game marks a teleport: tress_sim_reset(sim, root) resets every bone or part chain,
 *    accessory pendulum, rope and cloth whose bound root is `root` or lies under it (pass a
 *    character's model for all of it);
 *  - its root jumps: within one frame it lands more than TRESS_JUMP_RESET_CHAINS times the
 *    chain's length (the longest rest path from its root, tips included) away from where its
 *    velocity over the previous frame would have taken it. Steady fast motion (a character in
 *    a vehicle) never counts as a jump, however short the chain or low the frame rate;
 *  - the step stalls: one tress_sim_step with dt > TRESS_STALL_SECONDS;
 *  - its root moves more than the fixed teleport distance (50 studs, scaled) in one frame.
 * The last three are independent checks made every frame; whichever fires first snaps, and
 * snapping twice is the same as once. The teleport guard catches long jumps of long chains, the
 * chain-length check catches short chains whose 50-stud guard would never fire.
 */
#define TRESS_JUMP_RESET_CHAINS 3.0f
#define TRESS_STALL_SECONDS 0.5
tress_result tress_sim_reset(tress_sim *sim, tress_id root);

/* Advances the accumulator and runs due substeps (fixed_hz, at most max_substeps); poses are
 * written once at the end. Call it once per drawn frame at any rate: a frame that ends between
 * fixed steps (no substep, or time left after the last) draws every chain, rope and cloth carried
 * rigidly with what it hangs from since its last substep, so nothing stretches behind a moving
 * character; the simulated state itself only changes at substeps. A new chain starts (at the pose
 * it is drawn in) on its first frame, substep or not: tress_sim_step(sim, 0) right after binding
 * starts it at the bind pose, so the first substep swings it from there (three-vrm's setInitState). */
tress_result tress_sim_step(tress_sim *sim, double dt);
void tress_sim_set_camera(tress_sim *sim, const float position[3]);
tress_sim_stats tress_sim_get_stats(const tress_sim *sim);
/* The last step's profile (zeros unless the def's enable_profile is set). */
tress_sim_profile tress_sim_get_profile(const tress_sim *sim);
/* Bytes the sim holds (allocated capacity, not just what is in use): the handle registry, the
 * colliders, the bone- and part-chain batch (node arrays, per-chain slots, tile scratch) and the
 * pendulums. Ropes and cloth are not counted. 0 for NULL. */
size_t tress_sim_get_memory_bytes(const tress_sim *sim);

/* False for a null, stale or another sim's handle. */
bool tress_handle_is_valid(const tress_sim *sim, tress_handle_id h);
/* Unbinds: bones get their animated value back (identity when unanimated), part chains keep
 * their last frames, accessories get their joint offsets restored exactly. */
void tress_handle_destroy(tress_sim *sim, tress_handle_id h);
/* Retunes a bound handle live (bone and part chains; accessories). TRESS_ERR_STALE_ID for a
 * handle that is gone, TRESS_ERR_WRONG_OWNER for another sim's. */
tress_result tress_handle_set_chain_settings(tress_sim *sim, tress_handle_id h, const tress_chain_settings *s);
/* One bone's joint settings on a bound bone chain (see tress_joint_settings); NULL gives the
 * joint back to the chain's settings. TRESS_ERR_INVALID_ARGUMENT when the bone is not one of
 * the chain's, a value is not finite or the limit kind is unknown. Kept across tress_handle_set_chain_settings. */
tress_result tress_handle_set_joint_settings(tress_sim *sim, tress_handle_id h, tress_id bone,
                                             const tress_joint_settings *s);
tress_result tress_handle_set_accessory_settings(tress_sim *sim, tress_handle_id h,
                                                 const tress_accessory_settings *s);
/*
 * Scale (tress/scene.h, "Scale"). A bone or part chain follows the uniform composed scale k of
 * what its roots hang from (its part, or the part or bone above its root bone; a part chain: its
 * pin's, relative to bind), re-read whenever some scale in the scene changes: it swings the same
 * shape at its size. Everything measured in units follows k: link lengths, end tips, the strand
 * radius, the jump and teleport reset distances, and the accelerations the chain feels (the
 * sim's gravity and wind x k, the VRM model's stiffness and gravity power x k, both units/s):
 * the convention of Kawaii Physics and VRM, lengths scale and the motion keeps its shape and
 * timing (a chain at scale 2 moved along twice the path traces exactly twice the scale-1 path).
 * Set gravity_scale to 1/k to get the slower swing a really bigger pendulum has. Fractions
 * (damping, pose stiffness, weight) and times (TRESS_STALL_SECONDS) do not scale. When k changes
 * the chain's state is scaled about its roots, so it keeps swinging at the new size. A collider
 * follows its attach instance's composed scale (offset, tail, radius).
 * A non-uniform scale (axes differ by more than TRESS_SCALE_UNIFORM_TOLERANCE) on the way, or a
 * scale on one of the chain's own bones, cannot be followed: binding is refused with
 * TRESS_ERR_NON_UNIFORM_SCALE, and one that appears later holds the chain at its animated pose
 * (as a disabled one) and tress_handle_get_status reports it until the scale is uniform again.
 * A collider on a non-uniformly scaled instance is refused at create; one that becomes so later
 * takes its largest axis.
 * An accessory pendulum follows the composed scale k of its handle the same way: its joint
 * offsets are the game's, in world units at bind (scale k0), and the lever follows k / k0 after
 * that (the handle-side offset it writes keeps its direction and scales its position); the
 * synthetic and minimum levers, gravity, wind and the teleport distance follow k. A handle built
 * at scale 2 with twice the offsets on twice the path, or one bound at 1 and scaled to 2, traces
 * exactly twice the scale-1 path about its hinge. A non-uniform scale is refused at bind and
 * later holds the accessory at its worn pose (tress_handle_get_status reports it).
 */
/* TRESS_OK, TRESS_ERR_STALE_ID / TRESS_ERR_WRONG_OWNER for a handle that is not this sim's live
 * one, or TRESS_ERR_NON_UNIFORM_SCALE while a chain is held by a scale it cannot follow. */
tress_result tress_handle_get_status(const tress_sim *sim, tress_handle_id h);

/* Whether the handle stepped in the last frame (false while culled or asleep). */
bool tress_handle_is_awake(const tress_sim *sim, tress_handle_id h);

/* The loop adapter (tress_uv) registers here; see tress/sim_uv.h. */
void tress_sim_set_loop_hook(tress_sim *sim, tress_loop_fn fn, void *user);

/* Device budget: a short one-time micro-benchmark, Compute in [0.25, 4]. */
float tress_device_measure_compute(void);
int tress_device_get_max_chains(float compute);      /* max(round(10 * C), 1) */
float tress_device_get_max_distance(float compute);  /* round(80 * C) studs */

#ifdef __cplusplus
}
#endif

#endif
