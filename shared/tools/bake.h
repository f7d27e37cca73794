/* bake.h - a rigged accessory's sway under a scripted head motion (walk, turn, nod, stop), run
 * through the sim at its fixed rate and written as a glTF binary with the animation, for
 * `tress-rig --bake SECONDS` and `tress-bot --bake FILE`. */
#ifndef TRESS_TOOLS_BAKE_H
#define TRESS_TOOLS_BAKE_H

#include <stdint.h>

#include "tress/gltf.h"
#include "tress/mesh.h"
#include "tress/sim.h"

typedef struct bake_opts {
  double seconds;              /* the script's length: walk, turn, nod and stop take a quarter each */
  float fixed_hz;              /* 60: the sim's step and the clip's sample rate */
  tress_chain_settings chain;  /* rotations_only is forced on: glTF channels are rotations */
} bake_opts;

bake_opts bake_default_opts(void);

/* The head's world pose at time t of a script `seconds` long, for mesh m (sized and pivoted on
 * its bounds): walk forward (+Z) one and a half mesh heights, turn 90 degrees about a pivot at the bounds.
 * bottom centre, nod once by 15 degrees, then hold still. */
tress_xform bake_head_pose(const tress_mesh *m, double t, double seconds);

/* The clip: frame k is sim time k / fixed_hz, k in [0, frame_count). One rotation channel per
 * bone the sim simulates, bones[c] its mesh bone index, rotations[4 (c frame_count + k)] its
 * local rotation; the head's pose per frame. */
typedef struct bake_clip {
  uint32_t frame_count, channel_count;
  uint32_t *bones;
  float *rotations;
  float *head_translations, *head_rotations;
} bake_clip;

/* Builds a scene (a Head part with m's bones under it, bind placed), binds it and runs the
 * script. 0, or -1 with err filled. */
int bake_run(const tress_mesh *m, const bake_opts *o, bake_clip *out, tress_error *err);
void bake_clip_free(bake_clip *c);
/* bake_run, then m (with source's document when not NULL) and the clip as "Sway" to path (.glb). */
int bake_write(const tress_mesh *m, const tress_gltf_source *source, const bake_opts *o, const char *path,
               bake_clip *clip_out, tress_error *err);

#endif
