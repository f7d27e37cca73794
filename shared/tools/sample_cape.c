/* tress-sample-cape - writes the project's pre-skinned sample cape (assets/meshes/cape_skinned.glb):
 *
 *   tress-sample-cape -o FILE.glb
 *
 * A curved sheet hanging from the shoulders (y = 0 down to y = -2, x = -0.8..0.8, bulging back
 * toward -z) skinned to its own bones: CapeRoot at the top centre, then three chains
 * (CapeL_1..4, CapeM_1..4, CapeR_1..4) at x = -0.6, 0, 0.6, one bone every 0.5 down. A vertex
 * blends the two nearest chains across and the two nearest bones down, so it uses up to four
 * joints (the wire's maximum); the top row belongs to CapeRoot alone. Deterministic: the same
 * bytes every run, so the committed file can be checked against this program. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tress/gltf.h"

#define COLUMNS 9
#define ROWS 11
#define CHAINS 3
#define LEVELS 4 /* bones per chain below the root */
#define WIDTH 1.6f
#define LENGTH 2.0f
#define BULGE 0.15f

static const char *const chain_names[CHAINS] = {"CapeL", "CapeM", "CapeR"};
static const float chain_x[CHAINS] = {-0.6f, 0.0f, 0.6f};

/* Bone index: 0 is CapeRoot, then chain c's level l (1..LEVELS) at 1 + c * LEVELS + (l - 1). */
static uint16_t bone_at(int chain, int level) { return level == 0 ? 0 : (uint16_t)(1 + chain * LEVELS + (level - 1)); }

static float bulge_z(float x) {
  float u = x / (0.5f * WIDTH);
  return -BULGE * (1.0f - u * u);
}

static void add_bones(tress_mesh *m) {
  snprintf(m->bones[0].name, sizeof m->bones[0].name, "CapeRoot");
  m->bones[0].parent = -1;
  m->bones[0].bind_pos[2] = bulge_z(0.0f);
  for (int c = 0; c < CHAINS; c++)
    for (int l = 1; l <= LEVELS; l++) {
      tress_mesh_bone *b = &m->bones[bone_at(c, l)];
      snprintf(b->name, sizeof b->name, "%s_%d", chain_names[c], l);
      b->parent = bone_at(c, l - 1);
      b->bind_pos[0] = chain_x[c];
      b->bind_pos[1] = -LENGTH * (float)l / LEVELS;
      b->bind_pos[2] = bulge_z(chain_x[c]);
    }
}

/* Up to four (joint, weight) pairs: across (two chains) times down (two levels), the root merged. */
static void skin_vertex(tress_mesh *m, uint32_t v, float x, float y) {
  int c0 = 0;
  while (c0 < CHAINS - 2 && x > chain_x[c0 + 1]) c0++;
  float across = (x - chain_x[c0]) / (chain_x[c0 + 1] - chain_x[c0]);
  across = across < 0.0f ? 0.0f : (across > 1.0f ? 1.0f : across);
  float t = -y / LENGTH * LEVELS;
  int l0 = (int)floorf(t);
  if (l0 >= LEVELS) l0 = LEVELS - 1;
  float down = t - (float)l0;
  uint16_t *j = m->joints + 4 * (size_t)v;
  float *w = m->weights + 4 * (size_t)v;
  int slot = 0;
  for (int dc = 0; dc < 2; dc++)
    for (int dl = 0; dl < 2; dl++) {
      float weight = (dc ? across : 1.0f - across) * (dl ? down : 1.0f - down);
      if (weight <= 0.0f) continue;
      uint16_t bone = bone_at(c0 + dc, l0 + dl);
      int s = 0;
      while (s < slot && j[s] != bone) s++; /* the root is shared by both chains */
      if (s == slot) {
        j[slot] = bone;
        w[slot++] = 0.0f;
      }
      w[s] += weight;
    }
}

static tress_mesh *build_cape(void) {
  uint32_t vertices = COLUMNS * ROWS, triangles = 2 * (COLUMNS - 1) * (ROWS - 1);
  tress_mesh *m = tress_mesh_create(&(tress_mesh_def){vertices, 3 * triangles, true, true});
  if (!m || !tress_mesh_add_skin(m, 1 + CHAINS * LEVELS)) return NULL;
  add_bones(m);
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLUMNS; c++) {
      uint32_t v = (uint32_t)(r * COLUMNS + c);
      float u = (float)c / (COLUMNS - 1), s = (float)r / (ROWS - 1);
      float x = -0.5f * WIDTH + WIDTH * u, y = -LENGTH * s, z = bulge_z(x);
      float *p = m->positions + 3 * (size_t)v, *n = m->normals + 3 * (size_t)v;
      p[0] = x, p[1] = y, p[2] = z;
      /* outward (toward -z, away from the back it hangs on): the surface's normal */
      float dzdx = 2.0f * BULGE * x / (0.25f * WIDTH * WIDTH);
      float len = sqrtf(dzdx * dzdx + 1.0f);
      n[0] = dzdx / len, n[1] = 0.0f, n[2] = -1.0f / len;
      m->uvs[2 * (size_t)v] = u;
      m->uvs[2 * (size_t)v + 1] = s;
      skin_vertex(m, v, x, y);
    }
  uint32_t *ix = m->indices;
  for (int r = 0; r + 1 < ROWS; r++)
    for (int c = 0; c + 1 < COLUMNS; c++) {
      uint32_t a = (uint32_t)(r * COLUMNS + c), b = a + 1, d = a + COLUMNS, e = d + 1;
      /* counter-clockwise seen from -z, where the normals point */
      *ix++ = a, *ix++ = b, *ix++ = d;
      *ix++ = b, *ix++ = e, *ix++ = d;
    }
  return m;
}

int main(int argc, char **argv) {
  if (argc != 3 || strcmp(argv[1], "-o") != 0) {
    fprintf(stderr, "usage: tress-sample-cape -o FILE.glb\n");
    return 2;
  }
  tress_mesh *cape = build_cape();
  if (!cape) {
    fprintf(stderr, "tress-sample-cape: out of memory\n");
    return 1;
  }
  tress_error err;
  int rc = tress_gltf_write_glb(cape, argv[2], &err);
  if (rc != 0) fprintf(stderr, "tress-sample-cape: %s\n", err.message);
  else printf("%s: %u vertices, %u triangles, %u bones\n", argv[2], cape->vertex_count, cape->index_count / 3,
              cape->bone_count);
  tress_mesh_release(cape);
  return rc == 0 ? 0 : 1;
}
