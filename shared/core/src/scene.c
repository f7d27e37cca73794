/* scene.c - the instance tree.
 *
 * Instances live in one growable array of slots; an id is (slot + 1, generation) and a slot's
 * generation is bumped when it is freed, so stale ids fail every lookup. Tree links are slot
 * indices (one-based, 0 = none). Listeners live in a second slot array and chain per instance.
 *
 * Invariants:
 * - slot 0 (id index1 1) is the scene root and is never destroyed before the scene;
 * - a destroyed subtree fires DESTROYING on every instance while all of them are still valid,
 *   then frees them; listeners may destroy or reparent other instances from inside a callback;
 * - nothing here allocates per frame: lookups are O(1), walks are over the tree itself.
 */
#include "tress/scene.h"
#include "owner_tag.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene_slots.h"
#include "scene_side.h"
#include "scene_text.h"
#include "tress/mesh.h"

#define ASSET_ID_MAX TRESS_ASSET_ID_MAX

/* A joint's own data, in the scene's joint pool (a free one chains through next_free). */
typedef struct scene_joint {
  tress_joint def;
  tress_xform constraint_offset; /* WeldConstraint: part0^-1 * part1 when enabled */
  uint64_t seq;                  /* the joint's creation order: tress_scene_solve_joints' order */
  uint32_t slot;                 /* its instance (one-based), 0 while the entry is free */
  uint32_t next_free;            /* one-based */
} scene_joint;

/* A part's fields nothing reads per frame, in the scene's part pool (a free one chains through
 * next_free): a hair rig is mostly bones, so these 56 bytes do not size every slot. */
typedef struct scene_part {
  tress_mesh *mesh;
  scene_text asset_id;
  float size[3];
  float mesh_size[3];
  uint32_t next_free; /* one-based */
} scene_part;

/* Ordered widest alignment first (tress_xform's 16 bytes in the union), so little pads. */
typedef struct instance {
  union {
    /* a part's world cframe, a bone's rest, an attachment's frame: in the slot, because the
     * solver reads part frames and world_of walks them every frame (a bone's animated and
     * transform live in the dense bone slot arrays) */
    tress_xform cframe;
    tress_accessory_type accessory_type;
  } u;
  uint32_t generation;
  uint32_t parent, first_child, last_child, next_sibling, prev_sibling; /* one-based slots */
  uint32_t pool; /* a part's entry in the part pool, a joint's in the joint pool (one-based), a
                   bone's in the bone arrays (never 0: entry 0 is the root's) */
  scene_text name; /* in place up to 15 bytes, else on the heap (scene_text.h) */
  bool alive;
  bool simulated; /* a bone's: outside the union, which stays one cframe wide */
  bool side;      /* it has an entry in the side table: a scale or listeners (scene_side.h) */
  uint8_t kind;   /* tress_kind */
} instance;

typedef struct listener {
  uint32_t generation;
  bool alive;
  uint32_t instance; /* one-based slot */
  uint32_t next;     /* one-based */
  tress_listener_fn fn;
  void *user;
} listener;

struct tress_scene {
  instance *slots;
  uint32_t slot_count, slot_cap;
  /* Bones' animated input and transform output, by bone entry (a bone's `pool`; entry 0 is the
   * root's identity): a solver reading and writing thousands of bones a frame streams through
   * these 32-byte records instead of whole instances, in its own order once it asks for one
   * (tress__scene_order_bones). Dense: a destroyed bone's entry takes the last one. */
  tress_xform *bone_animated;
  tress_xform *bone_transform;
  uint32_t *bone_owner;          /* per entry: its bone's slot (one-based); 0 for entry 0 */
  uint32_t bone_count, bone_cap; /* entries, entry 0 included */
  uint32_t animated_bones;       /* entries whose animated is not bitwise the identity */
  uint32_t free_head; /* one-based chain through next_sibling of free slots */
  uint32_t live_count;
  uint64_t next_seq; /* the last joint's creation order */
  listener *listeners;
  uint32_t listener_count, listener_cap;
  uint32_t listener_free; /* one-based chain through next */
  uint64_t (*joint_order)[2]; /* reused by tress_scene_solve_joints: (creation seq, slot), one per
                                 pooled joint (every live joint holds one), not one per slot */
  uint32_t joint_order_cap;
  uint64_t layout_epoch;  /* bumped when slot storage moves or a slot is freed */
  uint64_t scale_epoch;   /* bumped when a scale is set or an instance is reparented */
  uint32_t owner;         /* the tag every id and connection of this scene carries */
  size_t cold_bytes;      /* heap bytes of names and asset ids too long to keep in place */
  scene_joint *joints;    /* the joint pool */
  uint32_t joint_count, joint_cap;
  uint32_t joint_free;    /* one-based chain through next_free */
  scene_side side;        /* scales and listener heads of the few instances with one */
  scene_part *parts;      /* the part pool */
  uint32_t part_count, part_cap;
  uint32_t part_free;     /* one-based chain through next_free */
};

size_t tress_scene_get_memory_bytes(const tress_scene *s) {
  if (!s) return 0;
  return sizeof *s + (size_t)s->slot_cap * sizeof(instance) +
         (size_t)s->bone_cap * (2 * sizeof(tress_xform) + sizeof(uint32_t)) +
         (size_t)s->listener_cap * sizeof(listener) + s->cold_bytes +
         (size_t)s->joint_cap * sizeof(scene_joint) + (size_t)s->part_cap * sizeof(scene_part) +
         (size_t)s->joint_order_cap * sizeof *s->joint_order + scene_side_bytes(&s->side);
}

#define JOINT_OF(s, in) (&(s)->joints[(in)->pool - 1])
#define PART_OF(s, in) (&(s)->parts[(in)->pool - 1])

static instance *slot_get(const tress_scene *s, tress_id id) {
  if (!s || id.index1 == 0 || id.index1 > s->slot_count || id.owner != s->owner) return NULL;
  instance *in = &s->slots[id.index1 - 1];
  if (!in->alive || in->generation != id.generation) return NULL;
  return in;
}

static instance *slot_kind(const tress_scene *s, tress_id id, tress_kind kind) {
  instance *in = slot_get(s, id);
  return (in && in->kind == kind) ? in : NULL;
}

static tress_id id_of(const tress_scene *s, uint32_t index1) {
  if (index1 == 0) return (tress_id){0};
  return (tress_id){index1, s->slots[index1 - 1].generation, s->owner};
}

/* Slot i's own scale, (1, 1, 1) without a side entry. */
static const float *own_scale(const tress_scene *s, uint32_t i) {
  static const float unit[3] = {1.0f, 1.0f, 1.0f};
  return s->slots[i - 1].side ? scene_side_find(&s->side, i)->scale : unit;
}

/* Slot i's first listener (one-based, 0: none). */
static uint32_t first_listener(const tress_scene *s, uint32_t i) {
  return s->slots[i - 1].side ? scene_side_find(&s->side, i)->first_listener : 0;
}

/* Slot i's side entry, made when it has none; NULL when memory runs out. */
static scene_side_entry *side_entry(tress_scene *s, uint32_t i) {
  scene_side_entry *e = scene_side_add(&s->side, i);
  if (e) s->slots[i - 1].side = true;
  return e;
}

/* Drops slot i's side entry once it holds only defaults. */
static void side_tidy(tress_scene *s, uint32_t i) {
  scene_side_entry *e = s->slots[i - 1].side ? scene_side_find(&s->side, i) : NULL;
  if (!e || e->first_listener || e->scale[0] != 1.0f || e->scale[1] != 1.0f || e->scale[2] != 1.0f) return;
  scene_side_remove(&s->side, i);
  s->slots[i - 1].side = false;
}

static void copy_name(char *dst, const char *src) {
  size_t n = src ? strlen(src) : 0;
  if (n >= TRESS_NAME_MAX) n = TRESS_NAME_MAX - 1;
  if (n) memcpy(dst, src, n);
  dst[n] = '\0';
}

/* An instance's texts change only through these, so the scene's count of their heap bytes holds. */
static void set_text(tress_scene *s, scene_text *t, const char *src, size_t cap) {
  s->cold_bytes = (size_t)((long)s->cold_bytes + scene_text_set(t, src, cap));
}

/* Returns a joint's or a part's pool entry (one-based) to its free chain. */
static void joint_free_entry(tress_scene *s, uint32_t j) {
  s->joints[j - 1].slot = 0;
  s->joints[j - 1].next_free = s->joint_free;
  s->joint_free = j;
}

static void part_free_entry(tress_scene *s, uint32_t p) {
  s->parts[p - 1].next_free = s->part_free;
  s->part_free = p;
}

/* Whether x is the identity bit for bit (a -0 or a NaN is not: a solver that skips reading
 * such entries must see the same bits it would have read). */
static bool xform_is_identity_bits(const tress_xform *x) {
  uint32_t b[7];
  memcpy(b, x->p, 3 * sizeof *b);
  memcpy(b + 3, x->q, 4 * sizeof *b);
  return (b[0] | b[1] | b[2] | b[3] | b[4] | b[5]) == 0u && b[6] == 0x3f800000u;
}

/* A bone's entry goes: the last entry moves into it, so the entries stay dense. */
static void bone_free_entry(tress_scene *s, uint32_t e) {
  if (!xform_is_identity_bits(&s->bone_animated[e])) s->animated_bones--;
  uint32_t last = --s->bone_count;
  if (e == last) return;
  s->bone_animated[e] = s->bone_animated[last];
  s->bone_transform[e] = s->bone_transform[last];
  s->bone_owner[e] = s->bone_owner[last];
  s->slots[s->bone_owner[e] - 1].pool = e;
}

/* What an instance holds outside the slot array: its name, a joint's data, a part's pool entry
 * (its mesh reference and asset id). */
static void release_cold(tress_scene *s, instance *in) {
  s->cold_bytes -= scene_text_clear(&in->name);
  if (in->kind == TRESS_KIND_PART && in->pool) {
    scene_part *p = PART_OF(s, in);
    if (p->mesh) tress_mesh_release(p->mesh);
    p->mesh = NULL;
    s->cold_bytes -= scene_text_clear(&p->asset_id);
    part_free_entry(s, in->pool);
  }
  if (in->kind == TRESS_KIND_JOINT && in->pool) joint_free_entry(s, in->pool);
  if (in->kind == TRESS_KIND_BONE && in->pool) bone_free_entry(s, in->pool);
  in->pool = 0;
}

/* The bone entries for cap entries (entry 0 included). */
static bool bones_grow(tress_scene *s, uint32_t cap) {
  tress_xform *a = realloc(s->bone_animated, cap * sizeof *a);
  if (!a) return false;
  s->bone_animated = a;
  tress_xform *t = realloc(s->bone_transform, cap * sizeof *t);
  if (!t) return false;
  s->bone_transform = t;
  uint32_t *o = realloc(s->bone_owner, cap * sizeof *o);
  if (!o) return false;
  s->bone_owner = o;
  s->bone_cap = cap;
  s->layout_epoch++; /* the arrays handed out by tress__bone_slot_arrays moved */
  return true;
}

/* A bone entry for a new bone, 0 when memory runs out. */
static uint32_t bone_alloc(tress_scene *s) {
  if (s->bone_count == s->bone_cap && !bones_grow(s, s->bone_cap * 2)) return 0;
  return s->bone_count++;
}

/* Slots for cap instances. */
static bool slots_grow(tress_scene *s, uint32_t cap) {
  instance *n = realloc(s->slots, cap * sizeof *n);
  if (!n) return false;
  s->slots = n;
  s->slot_cap = cap;
  s->layout_epoch++; /* the part frames handed out by tress__part_cframe_slot moved */
  return true;
}

/* One cframe-wide union: a part's cold fields and a joint's data live in pools. */
_Static_assert(sizeof(instance) <= 80, "an instance's hot part stays small (cold data lives apart)");

static bool joints_grow(tress_scene *s, uint32_t cap);
static bool parts_grow(tress_scene *s, uint32_t cap);

/* tress_scene_solve_joints orders at most every slot. */
static bool joint_order_grow(tress_scene *s, uint32_t cap) {
  uint64_t(*b)[2] = realloc(s->joint_order, cap * sizeof *b);
  if (!b) return false;
  s->joint_order = b;
  s->joint_order_cap = cap;
  return true;
}

static bool listeners_grow(tress_scene *s, uint32_t cap) {
  listener *b = realloc(s->listeners, cap * sizeof *b);
  if (!b) return false;
  s->listeners = b;
  s->listener_cap = cap;
  return true;
}

static uint32_t slot_alloc(tress_scene *s) {
  if (s->free_head) {
    uint32_t i = s->free_head;
    s->free_head = s->slots[i - 1].next_sibling;
    return i;
  }
  if (s->slot_count == s->slot_cap && !slots_grow(s, s->slot_cap ? s->slot_cap * 2 : 64)) return 0;
  s->slots[s->slot_count].generation = 0;
  return ++s->slot_count;
}

tress_scene_def tress_default_scene_def(void) {
  tress_scene_def d = {.instance_capacity = 64, .listener_capacity = 64, .joint_capacity = 16, .part_capacity = 16,
                       .bone_capacity = 64};
  return d;
}

tress_scene *tress_scene_create(const tress_scene_def *def) {
  if (!def) return NULL;
  tress_scene *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->owner = tress__owner_tag(s);
  uint32_t instances = def->instance_capacity ? def->instance_capacity : 1;
  bool sized = slots_grow(s, instances) &&
               (!def->joint_capacity || joints_grow(s, def->joint_capacity)) &&
               (!def->part_capacity || parts_grow(s, def->part_capacity)) &&
               bones_grow(s, def->bone_capacity + 1) && scene_side_reserve(&s->side, def->listener_capacity) &&
               (!def->listener_capacity || listeners_grow(s, def->listener_capacity));
  uint32_t root = sized ? slot_alloc(s) : 0;
  if (!root) {
    tress_scene_destroy(s);
    return NULL;
  }
  instance *in = &s->slots[root - 1];
  memset(in, 0, sizeof *in);
  in->generation = 1;
  in->alive = true;
  in->kind = TRESS_KIND_ROOT;
  s->bone_animated[0] = s->bone_transform[0] = tress_xform_identity(); /* tress__bone_slot_arrays */
  s->bone_owner[0] = 0;
  s->bone_count = 1;
  set_text(s, &in->name, "Scene", TRESS_NAME_MAX);
  s->live_count = 1;
  return s;
}

tress_id tress_scene_get_root(const tress_scene *s) { return id_of(s, 1); }
uint32_t tress_scene_get_instance_count(const tress_scene *s) { return s ? s->live_count : 0; }

static void link_child(tress_scene *s, uint32_t parent, uint32_t child) {
  instance *p = &s->slots[parent - 1];
  instance *c = &s->slots[child - 1];
  c->parent = parent;
  c->next_sibling = 0;
  c->prev_sibling = p->last_child;
  if (p->last_child) s->slots[p->last_child - 1].next_sibling = child;
  else p->first_child = child;
  p->last_child = child;
}

static void unlink_child(tress_scene *s, uint32_t child) {
  instance *c = &s->slots[child - 1];
  if (!c->parent) return;
  instance *p = &s->slots[c->parent - 1];
  if (c->prev_sibling) s->slots[c->prev_sibling - 1].next_sibling = c->next_sibling;
  else p->first_child = c->next_sibling;
  if (c->next_sibling) s->slots[c->next_sibling - 1].prev_sibling = c->prev_sibling;
  else p->last_child = c->prev_sibling;
  c->parent = c->next_sibling = c->prev_sibling = 0;
}

tress_instance_def tress_default_instance_def(void) {
  tress_instance_def def;
  memset(&def, 0, sizeof def);
  def.kind = TRESS_KIND_FOLDER;
  def.cframe = tress_xform_identity();
  def.size[0] = def.size[1] = def.size[2] = 1.0f;
  return def;
}

/* Why a parent id is refused: another scene's id, or one whose slot is gone. */
static tress_result parent_problem(const tress_scene *s, tress_id parent) {
  if (tress_id_is_null(parent) || slot_get(s, parent)) return TRESS_OK;
  return parent.owner != s->owner ? TRESS_ERR_WRONG_OWNER : TRESS_ERR_STALE_ID;
}

static bool joints_grow(tress_scene *s, uint32_t cap) {
  scene_joint *b = realloc(s->joints, cap * sizeof *b);
  if (!b) return false;
  s->joints = b;
  s->joint_cap = cap;
  /* the solve order grows with the pool, so the per-frame solve never allocates */
  return joint_order_grow(s, cap);
}

/* A free joint in the pool (one-based), 0 when memory runs out. */
static uint32_t joint_alloc(tress_scene *s) {
  if (s->joint_free) {
    uint32_t j = s->joint_free;
    s->joint_free = s->joints[j - 1].next_free;
    return j;
  }
  if (s->joint_count == s->joint_cap && !joints_grow(s, s->joint_cap ? s->joint_cap * 2 : 16)) return 0;
  return ++s->joint_count;
}

static bool parts_grow(tress_scene *s, uint32_t cap) {
  scene_part *b = realloc(s->parts, cap * sizeof *b);
  if (!b) return false;
  s->parts = b;
  s->part_cap = cap;
  return true;
}

/* A free part entry in the pool (one-based), 0 when memory runs out. */
static uint32_t part_alloc(tress_scene *s) {
  if (s->part_free) {
    uint32_t p = s->part_free;
    s->part_free = s->parts[p - 1].next_free;
    return p;
  }
  if (s->part_count == s->part_cap && !parts_grow(s, s->part_cap ? s->part_cap * 2 : 16)) return 0;
  return ++s->part_count;
}

/* pool: the part's or joint's pool entry (one-based), a bone's entry, 0 for other kinds. */
static void init_kind(tress_scene *s, uint32_t i, const tress_instance_def *def, uint32_t pool) {
  instance *in = &s->slots[i - 1];
  in->pool = pool;
  switch (def->kind) {
  case TRESS_KIND_PART:
  {
    in->u.cframe = def->cframe;
    scene_part *p = PART_OF(s, in);
    memset(p, 0, sizeof *p);
    memcpy(p->size, def->size, sizeof p->size);
    break;
  }
  case TRESS_KIND_BONE:
    in->u.cframe = def->cframe;
    s->bone_animated[pool] = s->bone_transform[pool] = tress_xform_identity();
    s->bone_owner[pool] = i;
    break;
  case TRESS_KIND_ATTACHMENT: in->u.cframe = def->cframe; break;
  case TRESS_KIND_JOINT:
  {
    scene_joint *j = JOINT_OF(s, in);
    memset(j, 0, sizeof *j);
    j->def.c0 = j->def.c1 = tress_xform_identity();
    j->def.enabled = true;
    j->constraint_offset = tress_xform_identity();
    j->seq = ++s->next_seq;
    j->slot = i;
    break;
  }
  default: break;
  }
}

tress_result tress_scene_create_instance(tress_scene *s, const tress_instance_def *def, tress_id *out) {
  if (out) *out = (tress_id){0};
  if (!s || !def || def->kind == TRESS_KIND_ROOT || (unsigned)def->kind > TRESS_KIND_WRAP_LAYER)
    return TRESS_ERR_INVALID_ARGUMENT;
  tress_result parent_ok = parent_problem(s, def->parent);
  if (parent_ok != TRESS_OK) return parent_ok;
  bool pooled = def->kind == TRESS_KIND_JOINT || def->kind == TRESS_KIND_PART || def->kind == TRESS_KIND_BONE;
  uint32_t pool = def->kind == TRESS_KIND_JOINT  ? joint_alloc(s)
                  : def->kind == TRESS_KIND_PART ? part_alloc(s)
                  : def->kind == TRESS_KIND_BONE ? bone_alloc(s)
                                                 : 0;
  if (pooled && !pool) return TRESS_ERR_OUT_OF_MEMORY;
  uint32_t i = slot_alloc(s);
  if (!i) {
    if (def->kind == TRESS_KIND_JOINT) joint_free_entry(s, pool);
    if (def->kind == TRESS_KIND_PART) part_free_entry(s, pool);
    if (def->kind == TRESS_KIND_BONE) s->bone_count--; /* the last entry: nothing moves */
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  instance *in = &s->slots[i - 1];
  uint32_t gen = in->generation + 1;
  memset(in, 0, sizeof *in);
  in->generation = gen ? gen : 1;
  in->alive = true;
  in->kind = def->kind;
  set_text(s, &in->name, def->name, TRESS_NAME_MAX);
  init_kind(s, i, def, pool);
  s->live_count++;
  if (!tress_id_is_null(def->parent)) link_child(s, def->parent.index1, i);
  if (out) *out = id_of(s, i);
  return TRESS_OK;
}

bool tress_instance_is_valid(const tress_scene *s, tress_id id) { return slot_get(s, id) != NULL; }

tress_kind tress_instance_get_kind(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  return in ? in->kind : TRESS_KIND_ROOT;
}

void tress_instance_get_name(const tress_scene *s, tress_id id, char out[TRESS_NAME_MAX]) {
  instance *in = slot_get(s, id);
  copy_name(out, in ? scene_text_get(&in->name) : "");
}

void tress_instance_set_name(tress_scene *s, tress_id id, const char *name) {
  instance *in = slot_get(s, id);
  if (in) set_text(s, &in->name, name, TRESS_NAME_MAX);
}

tress_id tress_instance_get_parent(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  return in ? id_of(s, in->parent) : (tress_id){0};
}

tress_id tress_instance_get_first_child(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  return in ? id_of(s, in->first_child) : (tress_id){0};
}

tress_id tress_instance_get_next_sibling(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  return in ? id_of(s, in->next_sibling) : (tress_id){0};
}

tress_id tress_instance_find_child(const tress_scene *s, tress_id id, const char *name) {
  instance *in = slot_get(s, id);
  if (!in || !name) return (tress_id){0};
  for (uint32_t c = in->first_child; c; c = s->slots[c - 1].next_sibling)
    if (strcmp(scene_text_get(&s->slots[c - 1].name), name) == 0) return id_of(s, c);
  return (tress_id){0};
}

tress_id tress_instance_find_child_of_kind(const tress_scene *s, tress_id id, tress_kind kind) {
  instance *in = slot_get(s, id);
  if (!in) return (tress_id){0};
  for (uint32_t c = in->first_child; c; c = s->slots[c - 1].next_sibling)
    if (s->slots[c - 1].kind == kind) return id_of(s, c);
  return (tress_id){0};
}

bool tress_instance_is_descendant_of(const tress_scene *s, tress_id id, tress_id ancestor) {
  instance *in = slot_get(s, id);
  if (!in || !slot_get(s, ancestor)) return false;
  for (uint32_t p = in->parent; p; p = s->slots[p - 1].parent)
    if (p == ancestor.index1) return true;
  return false;
}

bool tress_instance_is_in_scene(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  if (!in) return false;
  if (id.index1 == 1) return true;
  return tress_instance_is_descendant_of(s, id, tress_scene_get_root(s));
}

/* The slot after cur in a pre-order walk of the subtree rooted at top (top first); 0 past its
 * last. A walk needs no storage, so listing a subtree allocates only the list itself. */
static uint32_t subtree_next(const tress_scene *s, uint32_t top, uint32_t cur) {
  if (s->slots[cur - 1].first_child) return s->slots[cur - 1].first_child;
  while (cur != top && !s->slots[cur - 1].next_sibling) cur = s->slots[cur - 1].parent;
  return cur == top ? 0 : s->slots[cur - 1].next_sibling;
}

/* The subtree's ids, pre-order (callbacks may change the tree, so they are taken first): into
 * `stack` when they fit (so a small subtree's calls never run out of memory), else onto the heap.
 * NULL when that fails; the caller frees what is not `stack` (ids_free). */
#define SUBTREE_STACK 16
static tress_id *subtree_ids(tress_scene *s, uint32_t top, uint32_t *count, tress_id stack[SUBTREE_STACK]) {
  uint32_t n = 0;
  for (uint32_t cur = top; cur; cur = subtree_next(s, top, cur)) n++;
  tress_id *ids = n <= SUBTREE_STACK ? stack : malloc(n * sizeof *ids);
  if (!ids) {
    *count = 0;
    return NULL;
  }
  uint32_t i = 0;
  for (uint32_t cur = top; cur; cur = subtree_next(s, top, cur)) ids[i++] = id_of(s, cur);
  *count = n;
  return ids;
}

static void ids_free(tress_id *ids, const tress_id *stack) {
  if (ids != stack) free(ids);
}

static void fire(tress_scene *s, tress_id id, tress_event ev) {
  /* Snapshot the listener chain so callbacks may connect or disconnect freely. */
  tress_connection local[16];
  tress_connection *list = local;
  uint32_t n = 0, cap = 16;
  instance *in = slot_get(s, id);
  if (!in) return;
  tress_connection rest = {0}; /* out of memory: the first listener past the snapshot */
  for (uint32_t l = first_listener(s, id.index1); l; l = s->listeners[l - 1].next) {
    if (n == cap) {
      tress_connection *bigger = malloc(2 * cap * sizeof *bigger);
      if (!bigger) {
        rest = (tress_connection){l, s->listeners[l - 1].generation, s->owner};
        break;
      }
      memcpy(bigger, list, n * sizeof *bigger);
      if (list != local) free(list);
      list = bigger;
      cap *= 2;
    }
    list[n++] = (tress_connection){l, s->listeners[l - 1].generation, s->owner};
  }
  for (uint32_t i = 0; i < n; i++) {
    listener *l = &s->listeners[list[i].index1 - 1];
    if (!l->alive || l->generation != list[i].generation) continue;
    if (!slot_get(s, id)) break;
    l->fn(s, id, ev, l->user);
  }
  if (list != local) free(list);
  /* The chain past a snapshot memory could not hold, walked as it stands: each listener's
   * successor is read before its callback, and one gone or reused by then ends the walk. */
  for (tress_connection at = rest; at.index1 && slot_get(s, id);) {
    const listener *l = &s->listeners[at.index1 - 1];
    if (!l->alive || l->generation != at.generation) break;
    uint32_t next = l->next;
    tress_connection after = {next, next ? s->listeners[next - 1].generation : 0, s->owner};
    l->fn(s, id, ev, l->user);
    at = after;
  }
}

static void free_slot(tress_scene *s, uint32_t i) {
  instance *in = &s->slots[i - 1];
  for (uint32_t l = first_listener(s, i); l;) {
    listener *li = &s->listeners[l - 1];
    uint32_t next = li->next;
    li->alive = false;
    li->generation++;
    li->next = s->listener_free;
    s->listener_free = l;
    l = next;
  }
  release_cold(s, in);
  in->alive = false;
  in->generation++;
  s->layout_epoch++; /* a cached pointer to this slot may now reach a reused instance */
  scene_side_remove(&s->side, i); /* its scale and listeners go with it */
  in->side = false;
  in->first_child = in->last_child = in->parent = in->prev_sibling = 0;
  in->next_sibling = s->free_head;
  s->free_head = i;
  s->live_count--;
}

void tress_instance_destroy(tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  if (!in || id.index1 == 1) return;
  uint32_t n;
  tress_id stack[SUBTREE_STACK];
  tress_id *ids = subtree_ids(s, id.index1, &n, stack);
  if (!ids) return;
  for (uint32_t i = 0; i < n; i++) fire(s, ids[i], TRESS_EVENT_DESTROYING);
  if (slot_get(s, id)) unlink_child(s, id.index1);
  /* Free children before parents so no freed slot is walked. */
  for (uint32_t i = n; i-- > 0;) {
    instance *c = slot_get(s, ids[i]);
    if (!c) continue;
    while (c->first_child) unlink_child(s, c->first_child); /* children reparented by callbacks */
    if (c->parent) unlink_child(s, ids[i].index1);
    free_slot(s, ids[i].index1);
  }
  ids_free(ids, stack);
}

bool tress_instance_set_parent(tress_scene *s, tress_id id, tress_id parent) {
  instance *in = slot_get(s, id);
  if (!in || id.index1 == 1) return false;
  if (!tress_id_is_null(parent)) {
    if (!slot_get(s, parent)) return false;
    if (tress_id_is_equal(parent, id) || tress_instance_is_descendant_of(s, parent, id)) return false;
  }
  if (in->parent == parent.index1) return true;
  /* who hears of it, listed before the move: out of memory refuses the move, never the event */
  uint32_t n;
  tress_id stack[SUBTREE_STACK];
  tress_id *ids = subtree_ids(s, id.index1, &n, stack);
  if (!ids) return false;
  unlink_child(s, id.index1);
  if (!tress_id_is_null(parent)) link_child(s, parent.index1, id.index1);
  s->scale_epoch++; /* its subtree now composes another chain of scales */
  for (uint32_t i = 0; i < n; i++) fire(s, ids[i], TRESS_EVENT_ANCESTRY_CHANGED);
  ids_free(ids, stack);
  return true;
}

tress_result tress_instance_visit_descendants(tress_scene *s, tress_id id, tress_visit_fn fn, void *user) {
  uint32_t n;
  if (!slot_get(s, id)) return TRESS_ERR_STALE_ID;
  tress_id stack[SUBTREE_STACK];
  tress_id *ids = subtree_ids(s, id.index1, &n, stack);
  if (!ids) return TRESS_ERR_OUT_OF_MEMORY;
  for (uint32_t i = 1; i < n; i++)
    if (slot_get(s, ids[i]) && !fn(s, ids[i], user)) break;
  ids_free(ids, stack);
  return TRESS_OK;
}

tress_connection tress_instance_connect(tress_scene *s, tress_id id, tress_listener_fn fn, void *user) {
  instance *in = slot_get(s, id);
  if (!in || !fn || !side_entry(s, id.index1)) return (tress_connection){0};
  uint32_t l = s->listener_free;
  if (l) {
    s->listener_free = s->listeners[l - 1].next;
  } else {
    if (s->listener_count == s->listener_cap && !listeners_grow(s, s->listener_cap ? s->listener_cap * 2 : 64)) {
      side_tidy(s, id.index1);
      return (tress_connection){0};
    }
    l = ++s->listener_count;
    s->listeners[l - 1].generation = 0;
  }
  scene_side_entry *e = scene_side_find(&s->side, id.index1);
  listener *li = &s->listeners[l - 1];
  li->alive = true;
  li->generation++;
  li->instance = id.index1;
  li->fn = fn;
  li->user = user;
  li->next = e->first_listener;
  e->first_listener = l;
  return (tress_connection){l, li->generation, s->owner};
}

void tress_connection_disconnect(tress_scene *s, tress_connection c) {
  if (!s || c.index1 == 0 || c.index1 > s->listener_count || c.owner != s->owner) return;
  listener *li = &s->listeners[c.index1 - 1];
  if (!li->alive || li->generation != c.generation) return;
  scene_side_entry *e = scene_side_find(&s->side, li->instance); /* a live listener's instance has one */
  uint32_t *link = &e->first_listener;
  while (*link && *link != c.index1) link = &s->listeners[*link - 1].next;
  if (*link) *link = li->next;
  side_tidy(s, li->instance);
  li->alive = false;
  li->generation++;
  li->next = s->listener_free;
  s->listener_free = c.index1;
}

void tress_scene_destroy(tress_scene *s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->slot_count; i++) {
    instance *in = &s->slots[i];
    if (in->alive) release_cold(s, in);
  }
  free(s->slots);
  free(s->bone_animated);
  free(s->bone_transform);
  free(s->bone_owner);
  free(s->listeners);
  free(s->joint_order);
  free(s->joints);
  free(s->parts);
  scene_side_free(&s->side);
  free(s);
}

/* ---- parts ---- */

tress_xform tress_part_get_cframe(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  return in ? in->u.cframe : tress_xform_identity();
}

const tress_xform *tress__part_cframe_slot(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  return in ? &in->u.cframe : NULL;
}

void tress_part_set_cframe(tress_scene *s, tress_id id, tress_xform cf) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  if (in) in->u.cframe = cf;
}

void tress_part_get_size(const tress_scene *s, tress_id id, float out[3]) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  for (int k = 0; k < 3; k++) out[k] = in ? PART_OF(s, in)->size[k] : 0.0f;
}

void tress_part_set_size(tress_scene *s, tress_id id, const float size[3]) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  if (in) memcpy(PART_OF(s, in)->size, size, sizeof PART_OF(s, in)->size);
}

void tress_part_set_mesh(tress_scene *s, tress_id id, tress_mesh *mesh) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  if (!in) return;
  scene_part *p = PART_OF(s, in);
  tress_mesh_retain(mesh);
  if (p->mesh) tress_mesh_release(p->mesh);
  p->mesh = mesh;
  float mn[3], mx[3];
  if (mesh && tress_mesh_get_bounds(mesh, mn, mx)) {
    for (int k = 0; k < 3; k++) p->mesh_size[k] = mx[k] - mn[k];
  } else {
    memset(p->mesh_size, 0, sizeof p->mesh_size);
  }
}

tress_mesh *tress_part_get_mesh(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  return in ? PART_OF(s, in)->mesh : NULL;
}

void tress_part_get_mesh_size(const tress_scene *s, tress_id id, float out[3]) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  for (int k = 0; k < 3; k++) out[k] = in ? PART_OF(s, in)->mesh_size[k] : 0.0f;
}

void tress_part_set_asset_id(tress_scene *s, tress_id id, const char *asset_id) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  if (!in) return;
  set_text(s, &PART_OF(s, in)->asset_id, asset_id, ASSET_ID_MAX);
}

void tress_part_get_asset_id(const tress_scene *s, tress_id id, char out[TRESS_ASSET_ID_MAX]) {
  instance *in = slot_kind(s, id, TRESS_KIND_PART);
  const char *a = in ? scene_text_get(&PART_OF(s, in)->asset_id) : "";
  size_t n = strlen(a);
  memcpy(out, a, n + 1);
}

/* ---- bones ---- */

tress_xform tress_bone_get_cframe(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  return in ? in->u.cframe : tress_xform_identity();
}

void tress_bone_set_cframe(tress_scene *s, tress_id id, tress_xform cf) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  if (in) in->u.cframe = cf;
}

tress_xform tress_bone_get_animated(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  return in ? s->bone_animated[in->pool] : tress_xform_identity();
}

void tress_bone_set_animated(tress_scene *s, tress_id id, tress_xform a) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  if (!in) return;
  s->animated_bones += (uint32_t)!xform_is_identity_bits(&a) - (uint32_t)!xform_is_identity_bits(&s->bone_animated[in->pool]);
  s->bone_animated[in->pool] = a;
  if (!in->simulated) s->bone_transform[in->pool] = a;
}

tress_xform tress_bone_get_transform(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  return in ? s->bone_transform[in->pool] : tress_xform_identity();
}

void tress_bone_set_transform(tress_scene *s, tress_id id, tress_xform t) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  if (in) s->bone_transform[in->pool] = t;
}

bool tress_bone_is_simulated(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  return in && in->simulated;
}

void tress_bone_set_simulated(tress_scene *s, tress_id id, bool sim) {
  instance *in = slot_kind(s, id, TRESS_KIND_BONE);
  if (in) in->simulated = sim;
}

uint64_t tress__scene_layout_epoch(const tress_scene *s) { return s ? s->layout_epoch : 0; }

uint32_t tress__scene_animated_bones(const tress_scene *s) { return s ? s->animated_bones : 0; }

uint64_t tress__bone_slot_arrays(tress_scene *s, tress_xform **animated, tress_xform **transform) {
  *animated = s ? s->bone_animated : NULL;
  *transform = s ? s->bone_transform : NULL;
  return s ? s->layout_epoch : 0;
}

uint32_t tress__bone_slot(const tress_scene *s, tress_id bone) {
  const instance *in = slot_kind(s, bone, TRESS_KIND_BONE);
  return in ? in->pool : 0; /* the root holds entry 0 */
}

bool tress__scene_order_bones(tress_scene *s, const tress_id *bones, uint32_t count) {
  if (!s) return false;
  uint32_t n = s->bone_count;
  uint32_t *to = calloc(n, sizeof *to); /* per old entry: its new one, 0 until placed */
  tress_xform *animated = malloc(s->bone_cap * sizeof *animated);
  tress_xform *transform = malloc(s->bone_cap * sizeof *transform);
  uint32_t *owner = malloc(s->bone_cap * sizeof *owner);
  if (!to || !animated || !transform || !owner) {
    free(to), free(animated), free(transform), free(owner);
    return false;
  }
  uint32_t next = 1;
  for (uint32_t k = 0; k < count; k++) {
    const instance *in = slot_kind(s, bones[k], TRESS_KIND_BONE);
    if (in && !to[in->pool]) to[in->pool] = next++;
  }
  bool moved = false;
  for (uint32_t e = 1; e < n; e++) {
    if (!to[e]) to[e] = next++;
    moved = moved || to[e] != e;
  }
  if (moved) {
    animated[0] = transform[0] = tress_xform_identity();
    owner[0] = 0;
    for (uint32_t e = 1; e < n; e++) {
      animated[to[e]] = s->bone_animated[e];
      transform[to[e]] = s->bone_transform[e];
      owner[to[e]] = s->bone_owner[e];
      s->slots[s->bone_owner[e] - 1].pool = to[e];
    }
    tress_xform *a = s->bone_animated, *t = s->bone_transform;
    uint32_t *o = s->bone_owner;
    s->bone_animated = animated, s->bone_transform = transform, s->bone_owner = owner;
    animated = a, transform = t, owner = o; /* the old arrays, freed below */
    s->layout_epoch++;
  }
  free(to), free(animated), free(transform), free(owner);
  return true;
}

/* World frame of a part, bone or attachment, with bones composed through `which` slot. */
enum bone_slot { SLOT_REST, SLOT_TRANSFORM, SLOT_ANIMATED };

/* The product of the scales of slot i and its ancestors, per axis (exact for uniform scales;
 * for non-uniform ones the per-axis product, as a lossy scale). */
static void composed_scale(const tress_scene *s, uint32_t i, float out[3]) {
  out[0] = out[1] = out[2] = 1.0f;
  for (uint32_t cur = i, n = 0; cur && n < 4096; cur = s->slots[cur - 1].parent, n++)
    for (int k = 0; k < 3; k++) out[k] *= own_scale(s, cur)[k];
}

/* parent * local, the local translation in the parent's scaled space (scale per axis). */
static tress_xform mul_scaled(tress_xform parent, tress_xform local, const float scale[3]) {
  for (int k = 0; k < 3; k++) local.p[k] *= scale[k];
  return tress_xform_mul(parent, local);
}

static tress_xform world_of(const tress_scene *s, uint32_t i, enum bone_slot which) {
  /* Walk up to the first part, then compose back down; depth is small (bone chains). */
  uint32_t chain[256];
  uint32_t n = 0;
  uint32_t cur = i;
  while (cur && n < 256) {
    instance *in = &s->slots[cur - 1];
    chain[n++] = cur;
    if (in->kind != TRESS_KIND_BONE && in->kind != TRESS_KIND_ATTACHMENT) break;
    cur = in->parent;
  }
  tress_xform w = tress_xform_identity();
  /* the scale the next local offset lives in: everything above it composed */
  float scale[3] = {1.0f, 1.0f, 1.0f};
  for (uint32_t k = n; k-- > 0;) {
    instance *in = &s->slots[chain[k] - 1];
    switch (in->kind) {
    case TRESS_KIND_PART: w = in->u.cframe; break;
    case TRESS_KIND_ATTACHMENT: w = mul_scaled(w, in->u.cframe, scale); break;
    case TRESS_KIND_BONE: {
      const tress_xform *anim = which == SLOT_TRANSFORM  ? &s->bone_transform[in->pool]
                                : which == SLOT_ANIMATED ? &s->bone_animated[in->pool]
                                                         : NULL;
      if (scale[0] == 1.0f && scale[1] == 1.0f && scale[2] == 1.0f) {
        /* unscaled: the same two products as always, bit for bit */
        w = tress_xform_mul(w, in->u.cframe);
        if (anim) w = tress_xform_mul(w, *anim);
      } else {
        w = mul_scaled(w, anim ? tress_xform_mul(in->u.cframe, *anim) : in->u.cframe, scale);
      }
      break;
    }
    default: break;
    }
    if (k == 0) break; /* the scale below the last instance is nobody's: no ancestor walk for it */
    if (k == n - 1) composed_scale(s, chain[k], scale); /* the top instance and its ancestors */
    else for (int a = 0; a < 3; a++) scale[a] *= own_scale(s, chain[k])[a];
  }
  return w;
}

bool tress_instance_set_scale(tress_scene *s, tress_id id, const float scale[3]) {
  instance *in = slot_get(s, id);
  if (!in || !scale) return false;
  for (int k = 0; k < 3; k++)
    if (!(isfinite(scale[k]) && scale[k] > 0.0f)) return false;
  bool unit = scale[0] == 1.0f && scale[1] == 1.0f && scale[2] == 1.0f;
  scene_side_entry *e = unit && !in->side ? NULL : side_entry(s, id.index1);
  if (!unit && !e) return false; /* out of memory: the scale stays as it was */
  if (e) memcpy(e->scale, scale, sizeof e->scale);
  side_tidy(s, id.index1);
  s->scale_epoch++;
  return true;
}

void tress_instance_get_scale(const tress_scene *s, tress_id id, float out[3]) {
  instance *in = slot_get(s, id);
  for (int k = 0; k < 3; k++) out[k] = in ? own_scale(s, id.index1)[k] : 1.0f;
}

bool tress_instance_get_world_scale(const tress_scene *s, tress_id id, float out[3]) {
  out[0] = out[1] = out[2] = 1.0f;
  if (!slot_get(s, id)) return true;
  composed_scale(s, id.index1, out);
  bool uniform = true;
  for (uint32_t cur = id.index1, n = 0; cur && n < 4096; cur = s->slots[cur - 1].parent, n++) {
    const float *k = own_scale(s, cur);
    uniform = uniform && tress_scale_is_uniform(k);
  }
  return uniform;
}

uint64_t tress__scene_scale_epoch(const tress_scene *s) { return s ? s->scale_epoch : 0; }

tress_xform tress_bone_get_world_rest(const tress_scene *s, tress_id id) {
  return slot_kind(s, id, TRESS_KIND_BONE) ? world_of(s, id.index1, SLOT_REST) : tress_xform_identity();
}

tress_xform tress_bone_get_world(const tress_scene *s, tress_id id) {
  return slot_kind(s, id, TRESS_KIND_BONE) ? world_of(s, id.index1, SLOT_TRANSFORM) : tress_xform_identity();
}

tress_xform tress_bone_get_world_animated(const tress_scene *s, tress_id id) {
  return slot_kind(s, id, TRESS_KIND_BONE) ? world_of(s, id.index1, SLOT_ANIMATED) : tress_xform_identity();
}

tress_xform tress_instance_get_world(const tress_scene *s, tress_id id) {
  instance *in = slot_get(s, id);
  if (!in) return tress_xform_identity();
  return world_of(s, id.index1, SLOT_TRANSFORM);
}

/* ---- accessories, attachments ---- */

tress_accessory_type tress_accessory_get_type(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_ACCESSORY);
  return in ? in->u.accessory_type : TRESS_ACCESSORY_UNKNOWN;
}

void tress_accessory_set_type(tress_scene *s, tress_id id, tress_accessory_type t) {
  instance *in = slot_kind(s, id, TRESS_KIND_ACCESSORY);
  if (in && t < TRESS_ACCESSORY_TYPE_COUNT) in->u.accessory_type = t;
}

tress_id tress_accessory_get_handle(const tress_scene *s, tress_id id) {
  if (!slot_kind(s, id, TRESS_KIND_ACCESSORY)) return (tress_id){0};
  tress_id h = tress_instance_find_child(s, id, "Handle");
  return slot_kind(s, h, TRESS_KIND_PART) ? h : (tress_id){0};
}

tress_xform tress_attachment_get_cframe(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_ATTACHMENT);
  return in ? in->u.cframe : tress_xform_identity();
}

void tress_attachment_set_cframe(tress_scene *s, tress_id id, tress_xform cf) {
  instance *in = slot_kind(s, id, TRESS_KIND_ATTACHMENT);
  if (in) in->u.cframe = cf;
}

tress_xform tress_attachment_get_world(const tress_scene *s, tress_id id) {
  return slot_kind(s, id, TRESS_KIND_ATTACHMENT) ? world_of(s, id.index1, SLOT_TRANSFORM) : tress_xform_identity();
}

/* ---- joints ---- */

bool tress_joint_get_def(const tress_scene *s, tress_id id, tress_joint *out) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in || !out) return false;
  *out = JOINT_OF(s, in)->def;
  return true;
}

static void capture_constraint_offset(tress_scene *s, instance *in) {
  tress_joint *j = &JOINT_OF(s, in)->def;
  if (j->kind != TRESS_JOINT_WELD_CONSTRAINT || !j->enabled) return;
  if (!slot_kind(s, j->part0, TRESS_KIND_PART) || !slot_kind(s, j->part1, TRESS_KIND_PART)) return;
  JOINT_OF(s, in)->constraint_offset = tress_xform_inv_mul(tress_part_get_cframe(s, j->part0), tress_part_get_cframe(s, j->part1));
}

void tress_joint_set_def(tress_scene *s, tress_id id, const tress_joint *def) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in || !def) return;
  JOINT_OF(s, in)->def = *def;
  capture_constraint_offset(s, in);
}

void tress_joint_set_enabled(tress_scene *s, tress_id id, bool enabled) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in) return;
  bool was = JOINT_OF(s, in)->def.enabled;
  JOINT_OF(s, in)->def.enabled = enabled;
  if (enabled && !was) capture_constraint_offset(s, in);
}

void tress_joint_set_offsets(tress_scene *s, tress_id id, tress_xform c0, tress_xform c1) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in) return;
  JOINT_OF(s, in)->def.c0 = c0;
  JOINT_OF(s, in)->def.c1 = c1;
}

tress_xform tress_joint_get_weld_constraint_offset(const tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  return in ? JOINT_OF(s, in)->constraint_offset : tress_xform_identity();
}

void tress_joint_set_weld_constraint_offset(tress_scene *s, tress_id id, tress_xform offset) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (in && tress_xform_is_finite(offset)) JOINT_OF(s, in)->constraint_offset = offset;
}

/* Where a Weld, Motor6D or WeldConstraint holds the side `mine0` names, from the other part. */
static tress_xform part_joint_frame(const tress_scene *s, const instance *in, bool mine0, tress_xform other_part) {
  const tress_joint *j = &JOINT_OF(s, in)->def;
  if (j->kind == TRESS_JOINT_WELD_CONSTRAINT) {
    tress_xform off = JOINT_OF(s, in)->constraint_offset;
    return mine0 ? tress_xform_mul(other_part, tress_xform_inverse(off)) : tress_xform_mul(other_part, off);
  }
  tress_xform mine = mine0 ? j->c0 : j->c1, other = mine0 ? j->c1 : j->c0;
  return tress_xform_mul(tress_xform_mul(other_part, other), tress_xform_inverse(mine));
}

bool tress_joint_place(tress_scene *s, tress_id id, tress_id part) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in || !JOINT_OF(s, in)->def.enabled || !slot_kind(s, part, TRESS_KIND_PART)) return false;
  const tress_joint *j = &JOINT_OF(s, in)->def;
  tress_xform at;
  switch (j->kind) {
  case TRESS_JOINT_WELD:
  case TRESS_JOINT_MOTOR6D:
  case TRESS_JOINT_WELD_CONSTRAINT: {
    bool mine0 = tress_id_is_equal(j->part0, part);
    if (!mine0 && !tress_id_is_equal(j->part1, part)) return false;
    tress_id other = mine0 ? j->part1 : j->part0;
    if (!slot_kind(s, other, TRESS_KIND_PART)) return false;
    at = part_joint_frame(s, in, mine0, tress_part_get_cframe(s, other));
    break;
  }
  case TRESS_JOINT_RIGID_CONSTRAINT: {
    instance *a0 = slot_kind(s, j->attachment0, TRESS_KIND_ATTACHMENT);
    instance *a1 = slot_kind(s, j->attachment1, TRESS_KIND_ATTACHMENT);
    if (!a0 || !a1) return false;
    bool mine0 = tress_id_is_equal(tress_instance_get_parent(s, j->attachment0), part);
    if (!mine0 && !tress_id_is_equal(tress_instance_get_parent(s, j->attachment1), part)) return false;
    const instance *mine = mine0 ? a0 : a1;
    at = tress_xform_mul(tress_attachment_get_world(s, mine0 ? j->attachment1 : j->attachment0),
                         tress_xform_inverse(mine->u.cframe));
    break;
  }
  default: return false;
  }
  tress_part_set_cframe(s, part, at);
  return true;
}

bool tress_joint_solve(tress_scene *s, tress_id id) {
  instance *in = slot_kind(s, id, TRESS_KIND_JOINT);
  if (!in) return false;
  const tress_joint *j = &JOINT_OF(s, in)->def;
  tress_id side1 = j->kind == TRESS_JOINT_RIGID_CONSTRAINT ? tress_instance_get_parent(s, j->attachment1) : j->part1;
  return tress_joint_place(s, id, side1);
}

static void swap_pair(uint64_t a[2], uint64_t b[2]) {
  uint64_t t0 = a[0], t1 = a[1];
  a[0] = b[0], a[1] = b[1];
  b[0] = t0, b[1] = t1;
}

static void sift_down(uint64_t (*a)[2], uint32_t root, uint32_t n) {
  for (uint32_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && a[child + 1][0] > a[child][0]) child++;
    if (a[root][0] >= a[child][0]) return;
    swap_pair(a[root], a[child]);
  }
}

/* Heapsort by creation seq (unique): in place, because glibc's qsort mallocs a buffer for arrays
 * over 1 KiB and tress_scene_solve_joints runs every frame. */
static void sort_by_seq(uint64_t (*a)[2], uint32_t n) {
  for (uint32_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (uint32_t end = n; end-- > 1;) {
    swap_pair(a[0], a[end]);
    sift_down(a, 0, end);
  }
}

void tress_scene_solve_joints(tress_scene *s) {
  if (!s) return;
  /* the joint pool, not the slots: a scene of thousands of bones and a few welds walks the few */
  /* joints_grow grows the order with the pool; only its failure leaves the order short */
  if (s->joint_count > s->joint_order_cap && !joint_order_grow(s, s->joint_count)) return;
  uint64_t(*order)[2] = s->joint_order;
  uint32_t n = 0;
  for (uint32_t j = 0; j < s->joint_count; j++) {
    if (!s->joints[j].slot) continue;
    order[n][0] = s->joints[j].seq;
    order[n][1] = s->joints[j].slot;
    n++;
  }
  if (!n) return;
  sort_by_seq(order, n);
  for (uint32_t i = 0; i < n; i++) tress_joint_solve(s, id_of(s, (uint32_t)order[i][1]));
}
