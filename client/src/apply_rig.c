/* apply_rig.c - rig results from the server, applied to the replica's accessory handles.
 *
 * The server replicates a rig (bones, rest transforms in mesh space, quantized skin weights)
 * and the BLAKE2b-256 content hash of the mesh it rigged. The client skins its own local copy
 * of the asset, so it first checks that copy hashes the same: a client with another version of
 * the asset (or none) would bend the wrong vertices. On a mismatch the accessory is left
 * boneless, a warning is reported, and BIND's bind_character swings it as a pendulum: the
 * seed's fallback, never a crash and never a half-applied rig.
 *
 * Applying is the second half of the seed's rig() steps 6 and 8: the message becomes the
 * rigger's output again (tress_rig_output), and tress_rig_build_bones puts bone instances under
 * the Handle at the worn scale and swaps in the bake with the part's size kept, as rig() and
 * the local hair manager do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"
#include "tress/rig.h"

/* ---- local assets -------------------------------------------------------------------------- */

static tress_mesh *load_from_root(tress_client *c, const char *asset_id) {
  if (!tress_asset_id_is_valid(asset_id)) return NULL; /* ids never leave the asset root */
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", c->asset_root, asset_id);
  return tress_mesh_file_load(path, NULL);
}

tress_mesh *tress__client_local_mesh(tress_client *c, const char *asset_id) {
  for (uint32_t i = 0; i < c->mesh_count; i++)
    if (strcmp(c->meshes[i].asset_id, asset_id) == 0) return c->meshes[i].mesh;
  if (c->mesh_count == c->mesh_cap) {
    uint32_t cap = c->mesh_cap ? 2 * c->mesh_cap : 8;
    mesh_cache_entry *n = realloc(c->meshes, cap * sizeof *n);
    if (!n) return NULL;
    c->meshes = n;
    c->mesh_cap = cap;
  }
  mesh_cache_entry *e = &c->meshes[c->mesh_count++];
  memset(e, 0, sizeof *e);
  snprintf(e->asset_id, sizeof e->asset_id, "%s", asset_id);
  e->mesh = c->def.load_mesh ? c->def.load_mesh(c->def.load_mesh_user, asset_id) : load_from_root(c, asset_id);
  return e->mesh;
}

bool tress__client_local_hash(tress_client *c, const char *asset_id, uint8_t out[TRESS_MESH_HASH_BYTES]) {
  if (!tress__client_local_mesh(c, asset_id)) return false;
  for (uint32_t i = 0; i < c->mesh_count; i++) {
    mesh_cache_entry *e = &c->meshes[i];
    if (strcmp(e->asset_id, asset_id) != 0) continue;
    if (!e->hashed) e->hashed = tress_mesh_get_content_hash(e->mesh, e->hash) == 0;
    memcpy(out, e->hash, TRESS_MESH_HASH_BYTES);
    return e->hashed;
  }
  return false;
}

void tress__client_mesh_cache_clear(tress_client *c) {
  for (uint32_t i = 0; i < c->mesh_count; i++) tress_mesh_release(c->meshes[i].mesh);
  free(c->meshes);
  c->meshes = NULL;
  c->mesh_count = c->mesh_cap = 0;
}

/* ---- RIG_RESULT ---------------------------------------------------------------------------- */

static void fallback(tress_client *c, replica_character *ch, uint32_t index) {
  ch->accessories[index].rig_state = TRESS_RIG_FALLBACK;
  c->stats.rigs_fallback++;
}

/* Whatever became of it, the rig BIND waits for is here. */
static void result_in(tress_client *c, replica_character *ch, uint32_t index) {
  ch->accessories[index].result_received = true;
  tress__replica_rig_arrived(c, ch);
}

/* The local geometry with the server's skin. */
static tress_mesh *bake_local(const tress_mesh *local, const tress_msg_rig_result *m, const tress_rig_bone *bones) {
  tress_mesh *baked = tress_mesh_clone(local);
  if (!baked) return NULL;
  if (baked->bones || baked->joints) {
    /* A local copy that is already skinned: start from its bare geometry. */
    free(baked->bones);
    free(baked->joints);
    free(baked->weights);
    baked->bones = NULL;
    baked->joints = NULL;
    baked->weights = NULL;
    baked->bone_count = 0;
  }
  if (!tress_mesh_add_skin(baked, m->bone_count)) {
    tress_mesh_release(baked);
    return NULL;
  }
  for (uint32_t b = 0; b < m->bone_count; b++) {
    tress_mesh_bone *mb = &baked->bones[b];
    snprintf(mb->name, sizeof mb->name, "%s", bones[b].name);
    mb->parent = bones[b].parent;
    memcpy(mb->bind_pos, bones[b].bind_pos, sizeof mb->bind_pos);
  }
  uint32_t n = m->skin.vertex_count;
  tress_skin_dequantize(m->skin.weights, n, (tress_weight_format)m->skin.weight_format, baked->weights);
  for (size_t i = 0; i < 4 * (size_t)n; i++) baked->joints[i] = m->skin.joints[i];
  return baked;
}

/* The rigger's output again, from the message and the local mesh (its hash matched the
 * server's): rests in mesh space as the wire carries them, bind positions summed down from the
 * mesh bounds centre, and the bake. Free with tress_rig_output_free. */
static bool rig_from_message(const tress_mesh *local, const tress_msg_rig_result *m, tress_rig_output *out) {
  memset(out, 0, sizeof *out);
  out->bones = calloc(m->bone_count, sizeof *out->bones);
  if (!out->bones) return false;
  out->bone_count = m->bone_count;
  float mn[3], mx[3];
  tress_mesh_get_bounds(local, mn, mx);
  for (int k = 0; k < 3; k++) {
    out->bounds_center[k] = 0.5f * (mn[k] + mx[k]);
    out->mesh_size[k] = mx[k] - mn[k];
  }
  for (uint32_t b = 0; b < m->bone_count; b++) {
    const tress_wire_bone *wb = &m->bones[b];
    tress_rig_bone *rb = &out->bones[b];
    snprintf(rb->name, sizeof rb->name, "%s", wb->name);
    rb->parent = wb->parent;
    rb->rest = wb->rest;
    const float *origin = wb->parent < 0 ? out->bounds_center : out->bones[wb->parent].bind_pos;
    for (int k = 0; k < 3; k++) rb->bind_pos[k] = origin[k] + wb->rest.p[k];
  }
  out->mesh = bake_local(local, m, out->bones);
  return out->mesh != NULL;
}

/* Keeps the character's bones array in accessory order. */
static bool insert_bones(replica_character *ch, uint32_t index, const tress_id *ids, uint32_t count) {
  if (ch->bone_count + count > ch->bone_cap) {
    uint32_t cap = ch->bone_cap ? ch->bone_cap : 16;
    while (cap < ch->bone_count + count) cap *= 2;
    tress_id *n = realloc(ch->bones, cap * sizeof *n);
    if (!n) return false;
    ch->bones = n;
    ch->bone_cap = cap;
  }
  uint32_t at = 0;
  for (uint32_t a = 0; a < index; a++)
    if (ch->accessories[a].rig_state == TRESS_RIG_APPLIED) at += ch->accessories[a].bone_count;
  memmove(&ch->bones[at + count], &ch->bones[at], (ch->bone_count - at) * sizeof *ch->bones);
  memcpy(&ch->bones[at], ids, count * sizeof *ids);
  ch->bone_count += count;
  ch->pose_layout++;
  ch->accessories[index].bone_first = at;
  ch->accessories[index].bone_count = count;
  for (uint32_t a = index + 1; a < ch->manifest.accessory_count; a++)
    if (ch->accessories[a].rig_state == TRESS_RIG_APPLIED) ch->accessories[a].bone_first += count;
  return true;
}

void tress__apply_rig_result(tress_client *c, const tress_msg_rig_result *m) {
  c->stats.rigs_received++;
  replica_character *ch = tress__replica_find(c, m->character_id);
  if (!ch) return; /* removed (ignored) or not added yet (client.c holds those) */
  uint32_t index = m->accessory_index;
  if (index >= ch->manifest.accessory_count) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "RIG_RESULT for accessory %u of character %u, which has %u",
                         index, ch->id, ch->manifest.accessory_count);
    return;
  }
  replica_accessory *ra = &ch->accessories[index];
  const tress_wire_accessory *wa = &ch->manifest.accessories[index];
  if (ra->rig_state == TRESS_RIG_APPLIED) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u accessory %u: second RIG_RESULT ignored", ch->id,
                         index);
    return;
  }
  tress_mesh *local = wa->mesh_asset_id[0] ? tress__client_local_mesh(c, wa->mesh_asset_id) : NULL;
  if (!local) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                         "character %u accessory %u: no local copy of asset '%s'; swinging it as a pendulum", ch->id,
                         index, wa->mesh_asset_id);
    fallback(c, ch, index);
    result_in(c, ch, index);
    return;
  }
  uint8_t hash[TRESS_MESH_HASH_BYTES];
  tress__client_local_hash(c, wa->mesh_asset_id, hash);
  if (memcmp(hash, m->mesh_hash, sizeof hash) != 0) {
    char mine[2 * TRESS_MESH_HASH_BYTES + 1], theirs[2 * TRESS_MESH_HASH_BYTES + 1];
    tress_mesh_hash_to_hex(hash, mine);
    tress_mesh_hash_to_hex(m->mesh_hash, theirs);
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                         "character %u accessory %u: mesh hash mismatch for '%s' (local %.16s, server %.16s); "
                         "swinging it as a pendulum",
                         ch->id, index, wa->mesh_asset_id, mine, theirs);
    fallback(c, ch, index);
    result_in(c, ch, index);
    return;
  }
  if (m->skin.vertex_count != local->vertex_count) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL,
                         "character %u accessory %u: skin has %u vertices, the mesh %u", ch->id, index,
                         m->skin.vertex_count, local->vertex_count);
    fallback(c, ch, index);
    result_in(c, ch, index);
    return;
  }
  uint32_t n = m->bone_count;
  char(*names)[TRESS_NAME_MAX] = calloc(n, sizeof *names); /* on_rigged's view of the bones */
  tress_id *ids = calloc(n, sizeof *ids);
  tress_rig_output rig;
  memset(&rig, 0, sizeof rig);
  bool ok = names && ids && rig_from_message(local, m, &rig) && tress_rig_build_bones(c->scene, ra->handle, &rig, ids);
  if (ok && !insert_bones(ch, index, ids, n)) {
    for (uint32_t b = 0; b < n; b++)
      if (rig.bones[b].parent < 0) tress_instance_destroy(c->scene, ids[b]);
    ok = false;
  }
  tress_rig_output_free(&rig); /* the part holds its own reference to the bake */
  if (!ok) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u accessory %u: out of memory applying the rig",
                         ch->id, index);
    fallback(c, ch, index);
  } else {
    for (uint32_t b = 0; b < n; b++) snprintf(names[b], sizeof names[b], "%s", m->bones[b].name);
    ra->rig_state = TRESS_RIG_APPLIED;
    c->stats.rigs_applied++;
    c->stats.bones_bound += n;
    if (c->def.callbacks.on_rigged)
      c->def.callbacks.on_rigged(c->def.callbacks.user, c, ch->id, ra->handle, (const char(*)[TRESS_NAME_MAX])names, n);
  }
  free(names);
  free(ids);
  result_in(c, ch, index);
}

void tress__apply_rig_failed(tress_client *c, const tress_msg_rig_failed *m) {
  replica_character *ch = tress__replica_find(c, m->character_id);
  if (!ch) return;
  if (m->accessory_index >= ch->manifest.accessory_count) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "RIG_FAILED for accessory %u of character %u, which has %u",
                         m->accessory_index, ch->id, ch->manifest.accessory_count);
    return;
  }
  if (ch->accessories[m->accessory_index].rig_state == TRESS_RIG_APPLIED) return;
  tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                       "character %u accessory %u ('%s'): the server could not rig '%s', swinging it as a pendulum: "
                       "%s (%s)",
                       ch->id, m->accessory_index, ch->manifest.accessories[m->accessory_index].name,
                       ch->manifest.accessories[m->accessory_index].mesh_asset_id, m->reason,
                       tress_wire_code_name((tress_wire_code)m->code));
  fallback(c, ch, m->accessory_index);
  if (c->def.callbacks.on_rig_failed)
    c->def.callbacks.on_rig_failed(c->def.callbacks.user, c, ch->id, m->accessory_index, m->reason);
}
