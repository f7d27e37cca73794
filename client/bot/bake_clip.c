/* bake_clip.c - `tress-bot --bake FILE`: the rig the server made for bot 0's first character
 * (the skinned mesh its accessory part holds once the rig is applied), baked offline under the
 * scripted head motion of shared/tools/bake.h and written as a .glb with the sway clip. */
#include <stdio.h>

#include "bake.h"
#include "bot.h"

/* The skinned mesh of the part the character's first bone hangs from (its accessory handle). */
static tress_mesh *rigged_mesh(tress_client *c, uint32_t character_id) {
  tress_id bone;
  if (tress_client_get_bones(c, character_id, &bone, 1) == 0) return NULL;
  const tress_scene *scene = tress_client_get_scene(c);
  tress_id at = tress_instance_get_parent(scene, bone);
  while (!tress_id_is_null(at) && tress_instance_get_kind(scene, at) == TRESS_KIND_BONE)
    at = tress_instance_get_parent(scene, at);
  if (tress_id_is_null(at) || tress_instance_get_kind(scene, at) != TRESS_KIND_PART) return NULL;
  tress_mesh *m = tress_part_get_mesh(scene, at);
  return m && tress_mesh_is_skinned(m) ? m : NULL;
}

int bot_bake_write(tress_client *c, uint32_t character_id, const char *path) {
  tress_mesh *m = character_id ? rigged_mesh(c, character_id) : NULL;
  if (!m) {
    fprintf(stderr, "tress-bot: --bake: bot 0's first character has no rigged accessory to bake\n");
    return -1;
  }
  bake_opts o = bake_default_opts();
  bake_clip clip;
  tress_error err = {0};
  if (bake_write(m, NULL, &o, path, &clip, &err) != 0) {
    fprintf(stderr, "tress-bot: --bake %s: %s\n", path, err.message);
    return -1;
  }
  fprintf(stderr, "tress-bot: baked %s: %u bones, %u frames at %g Hz, %u rotation channels (walk, turn, nod, stop)\n",
          path, m->bone_count, clip.frame_count, o.fixed_hz, clip.channel_count);
  bake_clip_free(&clip);
  return 0;
}
