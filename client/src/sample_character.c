/* sample_character.c - the built-in demo character: three body parts, hair worn on the head
 * through a Weld (the server rigs it), a boneless hat on a RigidConstraint (a pendulum). */
#include <stdio.h>
#include <string.h>

#include "tress/sample_character.h"

typedef struct sample_hair {
  const char *asset_id;
  float size[3];   /* mesh bounds size of the committed sample mesh */
  float offset[3]; /* bounds centre relative to the head centre, in the mesh's own units */
} sample_hair;

static const sample_hair SAMPLE_HAIRS[] = {
    {"meshes/hair_bob.glb", {1.51f, 1.13f, 1.39f}, {0.0f, 0.105f, -0.075f}},
    {"meshes/hair_long.glb", {1.78f, 2.57f, 1.51f}, {0.0f, -0.615f, -0.135f}},
    {"meshes/hair_ponytail.glb", {1.24f, 1.89f, 1.64f}, {0.0f, -0.275f, -0.2f}},
};

static tress_wire_part part(const char *name, float sx, float sy, float sz, float x, float y, float z) {
  tress_wire_part p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "%s", name);
  p.size[0] = sx;
  p.size[1] = sy;
  p.size[2] = sz;
  p.cframe = tress_xform_from_pos(x, y, z);
  return p;
}

void tress_sample_character_init(tress_sample_character *s, const char *name, const char *hair_asset_id) {
  memset(s, 0, sizeof *s);
  const sample_hair *hair = &SAMPLE_HAIRS[0];
  for (size_t i = 0; hair_asset_id && i < sizeof SAMPLE_HAIRS / sizeof SAMPLE_HAIRS[0]; i++)
    if (strcmp(SAMPLE_HAIRS[i].asset_id, hair_asset_id) == 0) hair = &SAMPLE_HAIRS[i];

  s->parts[0] = part("HumanoidRootPart", 2.0f, 2.0f, 1.0f, 0.0f, 3.0f, 0.0f);
  s->parts[1] = part("UpperTorso", 2.0f, 1.6f, 1.0f, 0.0f, 3.2f, 0.0f);
  s->parts[2] = part("Head", 1.2f, 1.2f, 1.2f, 0.0f, 4.6f, 0.0f);
  const tress_xform head = s->parts[2].cframe;

  tress_wire_accessory *h = &s->accessories[0];
  snprintf(h->name, sizeof h->name, "Hair");
  h->type = TRESS_ACCESSORY_HAIR;
  snprintf(h->mesh_asset_id, sizeof h->mesh_asset_id, "%s", hair_asset_id ? hair_asset_id : hair->asset_id);
  memcpy(h->handle_size, hair->size, sizeof h->handle_size);
  h->joint_kind = TRESS_JOINT_WELD;
  h->c0 = tress_xform_identity();
  h->c1 = tress_xform_from_pos(hair->offset[0], hair->offset[1], hair->offset[2]);
  h->handle_cframe = tress_xform_mul(head, h->c1); /* handle * c0 == head * c1 */
  h->worn_on = 2;

  tress_wire_accessory *hat = &s->accessories[1];
  snprintf(hat->name, sizeof hat->name, "Hat");
  hat->type = TRESS_ACCESSORY_HAT;
  hat->handle_size[0] = 1.3f;
  hat->handle_size[1] = 0.4f;
  hat->handle_size[2] = 1.3f;
  hat->joint_kind = TRESS_JOINT_RIGID_CONSTRAINT;
  hat->c0 = tress_xform_from_pos(0.0f, -0.2f, 0.0f); /* attachment on the hat */
  hat->c1 = tress_xform_from_pos(0.0f, 0.6f, 0.0f);  /* attachment on the head */
  hat->handle_cframe = tress_xform_mul(tress_xform_mul(head, hat->c1), tress_xform_inverse(hat->c0));
  hat->worn_on = 2;

  tress_wire_manifest *m = &s->manifest;
  snprintf(m->character_name, sizeof m->character_name, "%s", name ? name : "Sample");
  m->part_count = TRESS_SAMPLE_CHARACTER_PARTS;
  m->parts = s->parts;
  m->accessory_count = TRESS_SAMPLE_CHARACTER_ACCESSORIES;
  m->accessories = s->accessories;
}
