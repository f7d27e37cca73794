/* scene_names.c - the text of the scene's enums (tress/scene.h): instance kinds, accessory types,
 * joint kinds and events. Accessory types and joint kinds keep the host engine's spelling
 * ("Hair", "Motor6D"), which manifests and dumps carry; the rest are the value's name in lower case.
 * A value outside its enum is "unknown". */
#include <string.h>

#include "tress/scene.h"

static const char *const KIND_NAMES[] = {
    [TRESS_KIND_ROOT] = "root",           [TRESS_KIND_FOLDER] = "folder",         [TRESS_KIND_MODEL] = "model",
    [TRESS_KIND_PART] = "part",           [TRESS_KIND_BONE] = "bone",             [TRESS_KIND_ACCESSORY] = "accessory",
    [TRESS_KIND_ATTACHMENT] = "attachment", [TRESS_KIND_JOINT] = "joint",         [TRESS_KIND_WRAP_LAYER] = "wrap_layer",
};

static const char *const ACCESSORY_NAMES[TRESS_ACCESSORY_TYPE_COUNT] = {
    "Unknown", "Hair",   "Hat",    "Neck",     "Shoulder", "Front",    "Back",      "Waist",      "Face",
    "Shirt",   "Pants",  "Jacket", "Sweater",  "Shorts",   "LeftShoe", "RightShoe", "DressSkirt", "Eyebrow",
    "Eyelash"};

static const char *const JOINT_NAMES[] = {
    [TRESS_JOINT_WELD] = "Weld",
    [TRESS_JOINT_MOTOR6D] = "Motor6D",
    [TRESS_JOINT_RIGID_CONSTRAINT] = "RigidConstraint",
    [TRESS_JOINT_WELD_CONSTRAINT] = "WeldConstraint",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_at(const char *const *names, size_t count, unsigned value) {
  return value < count && names[value] ? names[value] : "unknown";
}

/* The index whose text is `text`, or -1 (also for NULL). */
static int index_of(const char *const *names, size_t count, const char *text) {
  for (size_t i = 0; text && i < count; i++)
    if (names[i] && strcmp(names[i], text) == 0) return (int)i;
  return -1;
}

const char *tress_kind_name(tress_kind kind) { return name_at(KIND_NAMES, COUNT(KIND_NAMES), (unsigned)kind); }

const char *tress_accessory_type_name(tress_accessory_type t) {
  return name_at(ACCESSORY_NAMES, COUNT(ACCESSORY_NAMES), (unsigned)t);
}

bool tress_accessory_type_from_name(const char *text, tress_accessory_type *out) {
  int i = index_of(ACCESSORY_NAMES, COUNT(ACCESSORY_NAMES), text);
  if (i < 0 || !out) return false;
  *out = (tress_accessory_type)i;
  return true;
}

const char *tress_joint_kind_name(tress_joint_kind kind) {
  return name_at(JOINT_NAMES, COUNT(JOINT_NAMES), (unsigned)kind);
}

bool tress_joint_kind_from_name(const char *text, tress_joint_kind *out) {
  int i = index_of(JOINT_NAMES, COUNT(JOINT_NAMES), text);
  if (i < 0 || !out) return false;
  *out = (tress_joint_kind)i;
  return true;
}

const char *tress_event_name(tress_event event) {
  switch (event) {
  case TRESS_EVENT_DESTROYING: return "destroying";
  case TRESS_EVENT_ANCESTRY_CHANGED: return "ancestry_changed";
  }
  return "unknown";
}
