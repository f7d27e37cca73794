/* obj_read.c - Wavefront OBJ reader.
 *
 * OBJ indexes positions, uvs and normals separately; a GPU mesh needs one index per vertex. So
 * each distinct (v, vt, vn) corner is a vertex, found again through an open-addressing hash of
 * the triple. Faces with more than three corners are fanned from their first corner. Indices are
 * 1-based, negative ones count back from the latest element, and every one is range-checked
 * against what has been read so far (as the format defines).
 */
#include "tress/obj.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/result.h"

typedef struct fvec {
  float *v;
  size_t len, cap; /* in floats */
} fvec;

typedef struct corner {
  uint32_t v, vt, vn; /* 0-based; UINT32_MAX = absent */
} corner;

typedef struct obj_state {
  fvec pos, uv, nrm;
  corner *corners; /* unique corners, in vertex order */
  size_t corner_len, corner_cap;
  uint32_t *slots; /* hash: corner index + 1, 0 = empty */
  size_t slot_cap;
  uint32_t *tris;
  size_t tri_len, tri_cap; /* in indices */
  tress_error *err; /* the caller's, may be NULL */
  size_t line;
  /* usemtl: the distinct names in order of first use, and the runs of triangles (tris indices)
   * each drew with; material is the current name's index, -1 before any usemtl */
  char (*material_names)[TRESS_NAME_MAX];
  uint32_t material_count;
  tress_mesh_submesh *runs;
  size_t run_len, run_cap;
  int32_t material;
  bool saw_usemtl;
} obj_state;

static bool failf(obj_state *s, const char *fmt, ...) {
  char msg[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tress_error_set(s->err, TRESS_ERR_INVALID_ARGUMENT, "line %zu: %s", s->line, msg);
  return false;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 256;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}

static bool push_floats(obj_state *s, fvec *f, const float *v, int n) {
  if (!grow((void **)&f->v, &f->cap, f->len + (size_t)n, sizeof(float))) return failf(s, "out of memory");
  memcpy(f->v + f->len, v, sizeof(float) * (size_t)n);
  f->len += (size_t)n;
  return true;
}

static uint32_t hash_corner(corner c) {
  uint32_t h = c.v * 2654435761u ^ (c.vt + 0x9e3779b9u) * 2246822519u ^ (c.vn + 0x7f4a7c15u) * 3266489917u;
  return h ^ (h >> 15);
}

static bool rehash(obj_state *s, size_t cap) {
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (size_t i = 0; i < s->corner_len; i++) {
    size_t at = hash_corner(s->corners[i]) & (cap - 1);
    while (slots[at]) at = (at + 1) & (cap - 1);
    slots[at] = (uint32_t)i + 1;
  }
  free(s->slots);
  s->slots = slots;
  s->slot_cap = cap;
  return true;
}

/* The vertex index of a corner, adding it when new. */
static bool corner_vertex(obj_state *s, corner c, uint32_t *out) {
  if (2 * (s->corner_len + 1) > s->slot_cap && !rehash(s, s->slot_cap ? 2 * s->slot_cap : 1024)) return failf(s, "out of memory");
  size_t at = hash_corner(c) & (s->slot_cap - 1);
  while (s->slots[at]) {
    corner o = s->corners[s->slots[at] - 1];
    if (o.v == c.v && o.vt == c.vt && o.vn == c.vn) {
      *out = s->slots[at] - 1;
      return true;
    }
    at = (at + 1) & (s->slot_cap - 1);
  }
  if (s->corner_len >= UINT32_MAX / 4) return failf(s, "too many vertices");
  if (!grow((void **)&s->corners, &s->corner_cap, s->corner_len + 1, sizeof(corner))) return failf(s, "out of memory");
  s->corners[s->corner_len] = c;
  s->slots[at] = (uint32_t)s->corner_len + 1;
  *out = (uint32_t)s->corner_len++;
  return true;
}

/* Resolves a 1-based or negative index against count elements; absent stays UINT32_MAX. */
static bool resolve(obj_state *s, long idx, size_t count, const char *what, uint32_t *out) {
  long long r = idx > 0 ? idx - 1 : (long long)count + idx;
  if (idx == 0 || r < 0 || (size_t)r >= count) return failf(s, "%s index %ld out of range (have %zu)", what, idx, count);
  *out = (uint32_t)r;
  return true;
}

static bool parse_floats(obj_state *s, const char *p, float *out, int need, int max) {
  int got = 0;
  while (got < max) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') break;
    char *end;
    errno = 0;
    float f = strtof(p, &end);
    if (end == p || !isfinite(f)) return failf(s, "bad number");
    out[got++] = f;
    p = end;
  }
  if (got < need) return failf(s, "expected %d numbers, got %d", need, got);
  return true;
}

static bool parse_face(obj_state *s, const char *p) {
  uint32_t first = 0, prev = 0;
  int n = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') break;
    corner c = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) return failf(s, "bad face corner");
    if (!resolve(s, v, s->pos.len / 3, "position", &c.v)) return false;
    p = end;
    if (*p == '/') {
      p++;
      if (*p != '/') {
        long vt = strtol(p, &end, 10);
        if (end == p) return failf(s, "bad uv index");
        if (!resolve(s, vt, s->uv.len / 2, "uv", &c.vt)) return false;
        p = end;
      }
      if (*p == '/') {
        p++;
        long vn = strtol(p, &end, 10);
        if (end == p) return failf(s, "bad normal index");
        if (!resolve(s, vn, s->nrm.len / 3, "normal", &c.vn)) return false;
        p = end;
      }
    }
    if (*p && *p != ' ' && *p != '\t' && *p != '#') return failf(s, "bad face corner");
    uint32_t vert = 0;
    if (!corner_vertex(s, c, &vert)) return false;
    if (n == 0) first = vert;
    else if (n >= 2) {
      if (!grow((void **)&s->tris, &s->tri_cap, s->tri_len + 3, sizeof(uint32_t))) return failf(s, "out of memory");
      s->tris[s->tri_len++] = first;
      s->tris[s->tri_len++] = prev;
      s->tris[s->tri_len++] = vert;
    }
    prev = vert;
    n++;
  }
  if (n < 3) return failf(s, "face with %d corners", n);
  return true;
}

/* usemtl NAME: the current material from now on (a name seen before gets its first index). */
static bool use_material(obj_state *s, const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  char name[TRESS_NAME_MAX];
  size_t n = strcspn(p, "#");
  while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, p, n);
  name[n] = 0;
  s->saw_usemtl = true;
  for (uint32_t i = 0; i < s->material_count; i++) {
    if (strcmp(s->material_names[i], name) != 0) continue;
    s->material = (int32_t)i;
    return true;
  }
  if (s->material_count == TRESS_OBJ_MAX_MATERIALS) return failf(s, "more than %u usemtl materials", TRESS_OBJ_MAX_MATERIALS);
  if (!s->material_names && !(s->material_names = malloc(sizeof *s->material_names * TRESS_OBJ_MAX_MATERIALS))) return failf(s, "out of memory");
  memcpy(s->material_names[s->material_count], name, n + 1);
  s->material = (int32_t)s->material_count++;
  return true;
}

/* Puts the triangles added since the last run into a run of the current material (extending the
 * last run when the material did not change). */
static bool close_run(obj_state *s) {
  uint32_t at = s->run_len ? s->runs[s->run_len - 1].first_index + s->runs[s->run_len - 1].index_count : 0;
  if (s->tri_len == at) return true;
  if (s->run_len && s->runs[s->run_len - 1].material == s->material) {
    s->runs[s->run_len - 1].index_count = (uint32_t)s->tri_len - s->runs[s->run_len - 1].first_index;
    return true;
  }
  if (s->run_len == TRESS_OBJ_MAX_SUBMESHES) return failf(s, "more than %u usemtl runs", TRESS_OBJ_MAX_SUBMESHES);
  if (!grow((void **)&s->runs, &s->run_cap, s->run_len + 1, sizeof *s->runs)) return failf(s, "out of memory");
  tress_mesh_submesh *r = &s->runs[s->run_len++];
  memset(r, 0, sizeof *r);
  r->first_index = at;
  r->index_count = (uint32_t)s->tri_len - at;
  r->material = s->material;
  if (s->material >= 0) memcpy(r->material_name, s->material_names[s->material], sizeof r->material_name);
  return true;
}

static tress_mesh *build(obj_state *s) {
  if (s->tri_len == 0) { failf(s, "no faces"); return NULL; }
  bool has_nrm = true, has_uv = true;
  for (size_t i = 0; i < s->corner_len; i++) {
    has_nrm &= s->corners[i].vn != UINT32_MAX;
    has_uv &= s->corners[i].vt != UINT32_MAX;
  }
  tress_mesh_def mesh_def = {.vertex_count = (uint32_t)s->corner_len, .index_count = (uint32_t)s->tri_len,
                             .has_normals = has_nrm, .has_uvs = has_uv};
  tress_mesh *m = tress_mesh_create(&mesh_def);
  if (!m) { failf(s, "out of memory"); return NULL; }
  for (size_t i = 0; i < s->corner_len; i++) {
    corner c = s->corners[i];
    memcpy(m->positions + 3 * i, s->pos.v + 3 * (size_t)c.v, 12);
    if (has_nrm) memcpy(m->normals + 3 * i, s->nrm.v + 3 * (size_t)c.vn, 12);
    if (has_uv) { /* OBJ's v runs up from the image's bottom, glTF's (and tress_mesh's) down from its top */
      m->uvs[2 * i] = s->uv.v[2 * (size_t)c.vt];
      m->uvs[2 * i + 1] = 1.0f - s->uv.v[2 * (size_t)c.vt + 1];
    }
  }
  memcpy(m->indices, s->tris, 4 * s->tri_len);
  if (!s->saw_usemtl) return m;
  bool ok = close_run(s);
  if (ok && tress_mesh_set_submeshes(m, s->runs, (uint32_t)s->run_len) != TRESS_OK) ok = failf(s, "out of memory");
  if (ok) return m;
  tress_mesh_release(m);
  return NULL;
}

tress_mesh *tress_obj_read_memory(const char *text, size_t size, tress_error *err) {
  obj_state s;
  memset(&s, 0, sizeof s);
  s.err = err;
  s.material = -1;
  tress_mesh *m = NULL;
  char line[4096];
  size_t at = 0;
  bool ok = true;
  while (ok && at < size) {
    size_t end = at;
    while (end < size && text[end] != '\n') end++;
    size_t len = end - at;
    s.line++;
    if (len >= sizeof line) { ok = failf(&s, "line too long"); break; }
    if (memchr(text + at, 0, len)) { ok = failf(&s, "NUL byte in text"); break; }
    memcpy(line, text + at, len);
    line[len] = 0;
    if (len && line[len - 1] == '\r') line[len - 1] = 0;
    at = end + 1;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    float f[4];
    if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
      ok = parse_floats(&s, p + 2, f, 3, 4) && push_floats(&s, &s.pos, f, 3);
    } else if (p[0] == 'v' && p[1] == 'n' && (p[2] == ' ' || p[2] == '\t')) {
      ok = parse_floats(&s, p + 3, f, 3, 3) && push_floats(&s, &s.nrm, f, 3);
    } else if (p[0] == 'v' && p[1] == 't' && (p[2] == ' ' || p[2] == '\t')) {
      f[1] = 0.0f;
      ok = parse_floats(&s, p + 3, f, 1, 3) && push_floats(&s, &s.uv, f, 2);
    } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
      ok = parse_face(&s, p + 2);
    } else if (strncmp(p, "usemtl", 6) == 0 && (p[6] == ' ' || p[6] == '\t' || !p[6])) {
      ok = close_run(&s) && use_material(&s, p + 6);
    }
  }
  if (ok) m = build(&s);
  free(s.pos.v); free(s.uv.v); free(s.nrm.v);
  free(s.corners); free(s.slots); free(s.tris);
  free(s.material_names); free(s.runs);
  return m;
}

tress_mesh *tress_obj_load(const char *path, tress_error *err) {
  size_t size;
  uint8_t *data = tress_file_read(path, TRESS_OBJ_MAX_FILE_BYTES, &size, err);
  if (!data) return NULL;
  tress_mesh *m = tress_obj_read_memory((const char *)data, size, err);
  free(data);
  return m;
}
