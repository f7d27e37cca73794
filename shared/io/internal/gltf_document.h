/* gltf_document.h - io's one glTF 2.0 document reader, shared by mesh loading (gltf_read.c) and
 * spring import (tress::springs). Not a public header (never installed): it hands out cJSON
 * objects, which public headers must not.
 *
 * What it reads, each part checked before any byte of it is used:
 *   - the container: a .glb (header, JSON chunk; the BIN chunk when buffers are loaded) or .gltf
 *     JSON text, parsed once by cJSON;
 *   - nodes: O(1) access by index, each node's name, its local transform as written (matrix or
 *     TRS, with which fields are present and well-formed) and its children as node indices;
 *   - the node tree, leniently: parents from the children lists, and every problem (a child out
 *     of range, a node its own child, a node listed by two parents, cycles) recorded in file
 *     order with the nodes involved marked bad, so a strict reader can refuse and a lenient
 *     one warn and skip;
 *   - buffers (loaded on request: GLB BIN chunk, base64 data: URIs, external files under the
 *     base directory), bufferViews, accessors (typed reads with normalization; sparse accessors
 *     expanded into reader-owned memory) and skins.
 * All arithmetic on file numbers is 64-bit, so a lying count cannot wrap an offset back into
 * range. Reads go through memcpy, so misaligned data is slow but never undefined. */
#ifndef TRESS_GLTF_DOCUMENT_H
#define TRESS_GLTF_DOCUMENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/result.h"

#define TRESS__GLTF_MAX_BUFFERS 64
/* A materialised (sparse) accessor's dense copy: 16 M float VEC4s. */
#define TRESS__GLTF_MAX_MATERIALISED_BYTES (256u * 1024u * 1024u)

enum {
  TRESS__GLTF_BYTE = 5120,
  TRESS__GLTF_UBYTE = 5121,
  TRESS__GLTF_SHORT = 5122,
  TRESS__GLTF_USHORT = 5123,
  TRESS__GLTF_UINT = 5125,
  TRESS__GLTF_FLOAT = 5126
};
/* A bit set over the component types an accessor read accepts. */
#define TRESS__GLTF_ALLOW(ct) (1u << ((ct) - TRESS__GLTF_BYTE))

typedef struct tress__gltf_span {
  const uint8_t *data;
  uint64_t size;
} tress__gltf_span;

/* A little-endian uint32 (GLB headers and chunks). */
static inline uint32_t tress__gltf_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* How a member of a node was written. */
typedef enum tress__gltf_field { TRESS__GLTF_ABSENT = 0, TRESS__GLTF_OK, TRESS__GLTF_BAD } tress__gltf_field;

/* A node's local transform as written: each member ABSENT, OK (an array of exactly the right
 * number of finite numbers, copied) or BAD. Absent or bad members keep the glTF defaults. */
typedef struct tress__gltf_local {
  tress__gltf_field matrix, translation, rotation, scale;
  double m[16]; /* column-major */
  double t[3], r[4], s[3];
} tress__gltf_local;

typedef struct tress__gltf_node {
  const cJSON *json; /* nodes[i] as written (may be a non-object: is_object says) */
  bool is_object;
  const char *name;  /* NULL when it has no string name */
  tress__gltf_local local;
  tress__gltf_field children_state; /* BAD: "children" is not an array */
  uint32_t child_count;
  const int32_t *children; /* child_count entries: a node index, or -1 for an entry that is not one */
  int32_t parent;          /* the first node that lists it as a child; -1 for a root */
  bool bad;                /* its own child, listed by two parents, in a cycle, or below such a node */
} tress__gltf_node;

typedef enum tress__gltf_tree_problem_kind {
  TRESS__GLTF_CHILD_RANGE,  /* node lists an entry that is not a node index */
  TRESS__GLTF_SELF_CHILD,   /* node lists itself */
  TRESS__GLTF_TWO_PARENTS,  /* child is listed by node and by other (its parent) */
  TRESS__GLTF_CYCLE,        /* node is in or below a cycle */
} tress__gltf_tree_problem_kind;

typedef struct tress__gltf_tree_problem {
  tress__gltf_tree_problem_kind kind;
  int32_t node, child, other;
} tress__gltf_tree_problem;

/* Memory the doc owns until it closes (expanded sparse accessors). */
typedef struct tress__gltf_scratch {
  struct tress__gltf_scratch *next;
  uint8_t data[];
} tress__gltf_scratch;

typedef struct tress__gltf_doc {
  cJSON *root;
  tress_error *err; /* the caller's, may be NULL */
  tress_result code; /* the first failure's code (kept when err is NULL) */
  const char *base_dir; /* external buffer URIs are relative to it; NULL = the current directory */
  /* Set between open and load_buffers (open sets the defaults): the directory external buffers
   * must resolve beneath (NULL = base_dir), and the bytes buffers may still take. */
  const char *root_dir;
  uint64_t bytes_left;
  uint64_t expand_left; /* bytes sparse expansion may still allocate (TRESS__GLTF_MAX_MATERIALISED_BYTES) */
  /* the GLB bytes after the JSON chunk (the BIN chunk is located when buffers load) */
  const uint8_t *glb;
  uint64_t glb_length, glb_after_json;
  bool is_glb;
  bool nodes_not_array; /* "nodes" is present but not an array */
  uint32_t node_count;
  tress__gltf_node *nodes;
  int32_t *child_pool;
  uint32_t problem_count;
  tress__gltf_tree_problem *problems;
  int buffer_count;
  tress__gltf_span buffers[TRESS__GLTF_MAX_BUFFERS];
  uint8_t *owned[TRESS__GLTF_MAX_BUFFERS]; /* decoded data: URIs and external files */
  tress__gltf_scratch *scratch;            /* expanded sparse accessors, freed with the doc */
} tress__gltf_doc;

/* A checked view of one accessor: element k's bytes start at base + k * stride. */
typedef struct tress__gltf_accessor {
  const uint8_t *base;
  uint64_t count;
  uint32_t stride;
  int component_type;
  int components;
  bool normalized;
} tress__gltf_accessor;

/* A skin's joints: node indices (each a node, none twice) and, per joint, the joint whose node
 * lists its node as a child (-1: none). */
typedef struct tress__gltf_skin {
  uint32_t joint_count;
  int32_t *joint_node;
  int32_t *joint_parent;
  bool has_inverse_binds;
  tress__gltf_accessor inverse_binds; /* MAT4 floats, at least joint_count of them */
} tress__gltf_skin;

/* Parses the container and the JSON (an object), then the nodes and the node tree. Returns 0,
 * or the error code with err (may be NULL) filled; close the doc either way. */
int tress__gltf_doc_open(tress__gltf_doc *doc, const uint8_t *data, size_t size, const char *base_dir, tress_error *err);
void tress__gltf_doc_close(tress__gltf_doc *doc);

/* A glTF or GLB file as the loaders read it: at most the smaller of max_bytes and
 * TRESS_GLTF_MAX_FILE_BYTES, with dir (dir_cap bytes) set to the folder its relative URIs resolve
 * against ("." for a bare name, "/" for a file in the root). NULL with err filled on failure;
 * the caller frees the bytes. */
uint8_t *tress__gltf_file_read(const char *path, uint64_t max_bytes, size_t *size, char *dir, size_t dir_cap,
                               tress_error *err);

/* Resolves every buffer (the GLB BIN chunk, data: URIs, external files) and checks each holds
 * its byteLength. An external file must resolve (symlinks followed) to a regular file beneath
 * root_dir, is opened component by component without following links (so one swapped in
 * meanwhile is refused too) and never read when it is not regular; each buffer's size is
 * counted against bytes_left before it is read or decoded. Failures name the URI as written. */
bool tress__gltf_doc_load_buffers(tress__gltf_doc *doc);

/* The bytes any other URI of the document names (an image's), under the buffers' rules: a base64
 * data: URI decoded, or an external file resolving beneath root_dir, opened without following
 * links, regular, counted against bytes_left. *out is malloc'd (the caller frees it); false with
 * the failure set (naming what and the URI as written) and *out NULL. */
bool tress__gltf_uri_read(tress__gltf_doc *doc, const char *uri, const char *what, uint8_t **out, uint64_t *size);

/* Fails the read: sets the code and the message (the first failure wins) and returns false. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
bool tress__gltf_fail(tress__gltf_doc *doc, tress_result code, const char *fmt, ...);

/* A non-negative integer member not above limit; missing gives def (or fails when def < 0). */
bool tress__gltf_get_uint(tress__gltf_doc *doc, const cJSON *obj, const char *key, int64_t def, uint64_t limit,
                          uint64_t *out, const char *what);
/* root[array][index] as an object, or NULL with the failure set. */
const cJSON *tress__gltf_array_item(tress__gltf_doc *doc, const char *array, uint64_t index, const char *what);

/* A node's local matrix, strictly: a matrix must be affine, every TRS member well-formed and the
 * rotation a non-zero quaternion (normalised). */
bool tress__gltf_node_matrix(tress__gltf_doc *doc, int32_t node, double m[16]);
/* out = a * b, column-major 4x4. */
void tress__gltf_mat_mul(const double a[16], const double b[16], double out[16]);

/* One bufferView: its bytes and byteStride (0 when unset). Buffers must be loaded. */
bool tress__gltf_view_get(tress__gltf_doc *doc, uint64_t view_index, const char *what, tress__gltf_span *bytes,
                          uint64_t *stride);
/* Accessor `index` with this many components, a component type in allowed and at most
 * max_count elements, every byte it names checked; a sparse one is expanded once its count and
 * bytes are known to fit (max_count, expand_left). role names it in failures. */
bool tress__gltf_accessor_get(tress__gltf_doc *doc, uint64_t index, int components, unsigned allowed, uint64_t max_count,
                              tress__gltf_accessor *out, const char *role);
/* Component c of element k as a float (normalized integers scaled to 0..1 or -1..1). */
float tress__gltf_read_float(const tress__gltf_accessor *a, uint64_t k, int c);
uint32_t tress__gltf_read_uint(const tress__gltf_accessor *a, uint64_t k, int c);

/* Reads skins[index] (free with tress__gltf_skin_free). */
bool tress__gltf_skin_read(tress__gltf_doc *doc, uint64_t index, uint32_t max_joints, tress__gltf_skin *out);
void tress__gltf_skin_free(tress__gltf_skin *skin);

#endif
