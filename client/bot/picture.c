/* picture.c - `tress-bot --picture out.png`: a side view of one character's bone chains over
 * time, drawn with cairo. Time runs left to right (a filmstrip); each pose is drawn in the
 * character's root frame (forward to the right, up is up): the animated pose dashed, the
 * simulated pose solid, and every chain tip's path as a trail, so the sway at 30 and 240 fps
 * can be compared by eye. Samples are taken at a fixed 30 Hz of sim time whatever the fps. The
 * character's colliders and the strands' radii come from the sim's debug draw
 * (tress/debug_draw.h), read into one buffer made at create and reused for every sample. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "tress/debug_draw.h"

#define SAMPLE_HZ 30.0
#define MAX_BONES 64
#define SECONDS_TO_UNITS 9.0 /* filmstrip spacing: units of drawing per second of time */
#define POSE_EVERY 6         /* draw a full pose every 6 samples (0.2 s) */
#define MAX_COLLIDERS 32
#define DEBUG_SHAPES 8192    /* the debug-draw buffer: every shape of the bot's sim in a frame */

/* A collider as the side view shows it: a, b in the root frame (a plane: its point and the
 * direction along it), radius. */
typedef struct side_collider {
  tress_debug_shape_kind kind;
  bool inside;
  float a[2], b[2];
  float radius;
} side_collider;

typedef struct sample {
  double t;
  float animated[MAX_BONES][2]; /* (forward, up) in the root frame */
  float drawn[MAX_BONES][2];
  float radius[MAX_BONES];      /* strand radius at the bone (0: none) */
  uint32_t collider_count;
  side_collider colliders[MAX_COLLIDERS];
} sample;

struct bot_picture {
  int fps;
  uint32_t cap, count;
  uint32_t bone_count;
  int parent[MAX_BONES];
  bool tip[MAX_BONES];
  double next_t;
  sample *samples;
  tress_debug_shape *shapes; /* reused by every record */
};

bot_picture *bot_picture_create(double seconds, int fps) {
  bot_picture *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->fps = fps;
  p->cap = (uint32_t)(seconds * SAMPLE_HZ) + 2;
  p->samples = calloc(p->cap, sizeof *p->samples);
  p->shapes = calloc(DEBUG_SHAPES, sizeof *p->shapes);
  if (!p->samples || !p->shapes) {
    bot_picture_destroy(p);
    return NULL;
  }
  return p;
}

void bot_picture_destroy(bot_picture *p) {
  if (!p) return;
  free(p->samples);
  free(p->shapes);
  free(p);
}

static void to_side(tress_xform root, tress_xform world, float out[2]) {
  tress_xform local = tress_xform_inv_mul(root, world);
  out[0] = local.p[2]; /* the path walks along the root's +Z */
  out[1] = local.p[1];
}

static bool same_collider(tress_collider_id a, tress_collider_id b) {
  return a.index1 == b.index1 && a.generation == b.generation && a.owner == b.owner;
}

static void side_of_collider(tress_xform root, const tress_debug_shape *d, side_collider *out) {
  out->kind = d->kind;
  out->inside = d->inside;
  out->radius = d->radius;
  to_side(root, tress_xform_from_pos(d->a[0], d->a[1], d->a[2]), out->a);
  if (d->kind != TRESS_DEBUG_PLANE) {
    to_side(root, tress_xform_from_pos(d->b[0], d->b[1], d->b[2]), out->b);
    return;
  }
  float n[3];
  tress_quat_rotate_inv(root.q, d->b, n); /* the normal in the root frame: the plane runs across it */
  out->b[0] = -n[1];
  out->b[1] = n[2];
}

/* The character's colliders and its bones' strand radii, from the sim's debug draw. */
static void record_debug(bot_picture *p, tress_client *c, uint32_t character_id, const tress_id *bones, tress_xform root,
                         sample *s) {
  tress_collider_id ids[MAX_COLLIDERS];
  uint32_t id_count = tress_client_get_collider_ids(c, character_id, ids, MAX_COLLIDERS);
  if (id_count > MAX_COLLIDERS) id_count = MAX_COLLIDERS;
  tress_debug_draw_opts opts = tress_default_debug_draw_opts();
  opts.bones_animated = opts.bones_simulated = opts.end_tips = false;
  opts.ropes = opts.cloth = opts.pendulums = false;
  uint32_t n = 0;
  if (tress_sim_debug_draw(tress_client_get_sim(c), &opts, p->shapes, DEBUG_SHAPES, &n) != TRESS_OK) return;
  if (n > DEBUG_SHAPES) n = DEBUG_SHAPES;
  for (uint32_t i = 0; i < n; i++) {
    const tress_debug_shape *d = &p->shapes[i];
    if (d->role == TRESS_DEBUG_STRAND_RADIUS) {
      for (uint32_t b = 0; b < p->bone_count; b++)
        if (tress_id_is_equal(d->instance, bones[b])) s->radius[b] = d->radius;
      continue;
    }
    for (uint32_t k = 0; k < id_count && s->collider_count < MAX_COLLIDERS; k++)
      if (same_collider(d->collider, ids[k])) side_of_collider(root, d, &s->colliders[s->collider_count++]);
  }
}

void bot_picture_record(bot_picture *p, tress_client *c, uint32_t character_id, double t) {
  if (!p || p->count >= p->cap || t + 1e-9 < p->next_t) return;
  tress_id bones[MAX_BONES];
  uint32_t n = tress_client_get_bones(c, character_id, bones, MAX_BONES);
  if (n == 0) return;
  if (n > MAX_BONES) n = MAX_BONES;
  tress_scene *scene = tress_client_get_scene(c);
  if (p->count == 0) {
    p->bone_count = n;
    for (uint32_t i = 0; i < n; i++) {
      p->parent[i] = -1;
      p->tip[i] = true;
      tress_id parent = tress_instance_get_parent(scene, bones[i]);
      for (uint32_t j = 0; j < n; j++)
        if (tress_id_is_equal(parent, bones[j])) p->parent[i] = (int)j;
    }
    for (uint32_t i = 0; i < n; i++)
      if (p->parent[i] >= 0) p->tip[p->parent[i]] = false;
  }
  if (n != p->bone_count) return;
  tress_xform root;
  if (tress_client_get_part_frame(c, character_id, 0, &root) != TRESS_OK) return;
  sample *s = &p->samples[p->count++];
  s->t = t;
  for (uint32_t i = 0; i < n; i++) {
    to_side(root, tress_bone_get_world_animated(scene, bones[i]), s->animated[i]);
    to_side(root, tress_bone_get_world(scene, bones[i]), s->drawn[i]);
  }
  record_debug(p, c, character_id, bones, root, s);
  p->next_t += 1.0 / SAMPLE_HZ;
}

#ifdef TRESS_HAVE_CAIRO
#include <cairo.h>
#ifdef TRESS_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>
#endif

typedef struct view {
  double scale, x0, y0, min_x, max_y;
} view;

static void map(const view *v, double t, const float side[2], double *x, double *y) {
  *x = v->x0 + (t * SECONDS_TO_UNITS + side[0] - v->min_x) * v->scale;
  *y = v->y0 + (v->max_y - side[1]) * v->scale;
}

static void draw_pose(cairo_t *cr, const bot_picture *p, const view *v, const sample *s, bool animated) {
  for (uint32_t i = 0; i < p->bone_count; i++) {
    if (p->parent[i] < 0) continue;
    const float *a = animated ? s->animated[p->parent[i]] : s->drawn[p->parent[i]];
    const float *b = animated ? s->animated[i] : s->drawn[i];
    double x0, y0, x1, y1;
    map(v, s->t, a, &x0, &y0);
    map(v, s->t, b, &x1, &y1);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
  }
  cairo_stroke(cr);
}

static void circle(cairo_t *cr, const view *v, double t, const float at[2], double radius) {
  double x, y;
  map(v, t, at, &x, &y);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x, y, radius * v->scale, 0, 2 * M_PI);
}

/* Colliders: spheres as circles, capsules as two circles and their sides, planes as a line
 * across the picture's piece of them; inside shapes dashed. */
static void draw_colliders(cairo_t *cr, const view *v, const sample *s) {
  cairo_set_line_width(cr, 1.2);
  cairo_set_source_rgba(cr, 0.1, 0.55, 0.25, 0.8);
  for (uint32_t k = 0; k < s->collider_count; k++) {
    const side_collider *c = &s->colliders[k];
    double dash = 3.0;
    cairo_set_dash(cr, c->inside ? &dash : NULL, c->inside ? 1 : 0, 0);
    if (c->kind == TRESS_DEBUG_PLANE) {
      const float half = 1.5f;
      float a[2] = {c->a[0] - half * c->b[0], c->a[1] - half * c->b[1]};
      float b[2] = {c->a[0] + half * c->b[0], c->a[1] + half * c->b[1]};
      double x0, y0, x1, y1;
      map(v, s->t, a, &x0, &y0);
      map(v, s->t, b, &x1, &y1);
      cairo_move_to(cr, x0, y0);
      cairo_line_to(cr, x1, y1);
    } else {
      circle(cr, v, s->t, c->a, c->radius);
      if (c->kind == TRESS_DEBUG_CAPSULE) {
        circle(cr, v, s->t, c->b, c->radius);
        double dx = c->b[0] - c->a[0], dy = c->b[1] - c->a[1], len = hypot(dx, dy);
        for (int side = -1; len > 1e-6 && side <= 1; side += 2) {
          float off[2] = {(float)(-dy / len * c->radius * side), (float)(dx / len * c->radius * side)};
          float a[2] = {c->a[0] + off[0], c->a[1] + off[1]}, b[2] = {c->b[0] + off[0], c->b[1] + off[1]};
          double x0, y0, x1, y1;
          map(v, s->t, a, &x0, &y0);
          map(v, s->t, b, &x1, &y1);
          cairo_move_to(cr, x0, y0);
          cairo_line_to(cr, x1, y1);
        }
      }
    }
    cairo_stroke(cr);
  }
  cairo_set_dash(cr, NULL, 0, 0);
}

/* Each simulated bone's strand radius as a thin circle around where it is drawn. */
static void draw_radii(cairo_t *cr, const bot_picture *p, const view *v, const sample *s) {
  cairo_set_line_width(cr, 0.8);
  cairo_set_source_rgba(cr, 0.6, 0.05, 0.1, 0.45);
  for (uint32_t i = 0; i < p->bone_count; i++)
    if (s->radius[i] > 0.0f) circle(cr, v, s->t, s->drawn[i], s->radius[i]);
  cairo_stroke(cr);
}

int bot_picture_write(bot_picture *p, const char *path) {
  if (!p || p->count < 2) {
    fprintf(stderr, "tress-bot: no bound character with bones to draw\n");
    return -1;
  }
  float min_x = 1e9f, max_x = -1e9f, min_y = 1e9f, max_y = -1e9f;
  for (uint32_t k = 0; k < p->count; k++) {
    const sample *s = &p->samples[k];
    for (uint32_t i = 0; i < p->bone_count; i++) {
      for (int w = 0; w < 2; w++) {
        const float *q = w ? s->drawn[i] : s->animated[i];
        float x = (float)(s->t * SECONDS_TO_UNITS) + q[0];
        min_x = fminf(min_x, x), max_x = fmaxf(max_x, x);
        min_y = fminf(min_y, q[1]), max_y = fmaxf(max_y, q[1]);
      }
    }
    for (uint32_t c = 0; c < s->collider_count; c++) {
      const side_collider *sc = &s->colliders[c];
      if (sc->kind == TRESS_DEBUG_PLANE) continue; /* a plane is drawn across what is there */
      for (int e = 0; e < 2; e++) {
        const float *q = e ? sc->b : sc->a;
        float x = (float)(s->t * SECONDS_TO_UNITS) + q[0];
        min_x = fminf(min_x, x - sc->radius), max_x = fmaxf(max_x, x + sc->radius);
        min_y = fminf(min_y, q[1] - sc->radius), max_y = fmaxf(max_y, q[1] + sc->radius);
      }
    }
  }
  /* The filmstrip's width fixes the scale; the picture is as tall as the chains need. */
  const int width = 1600, margin = 50, title = 40, panel = 200, gap = 40;
  view v;
  v.scale = (width - 2.0 * margin) / fmax(max_x - min_x, 1e-3);
  v.scale = fmin(v.scale, 420.0 / fmax(max_y - min_y, 1e-3));
  const int height = (int)(2 * margin + title + (max_y - min_y) * v.scale + gap + panel);
  v.x0 = margin;
  v.y0 = margin + title;
  v.min_x = min_x;
  v.max_y = max_y;

  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);

  /* Time axis. */
  cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
  cairo_set_line_width(cr, 1.0);
  double span = p->samples[p->count - 1].t - p->samples[0].t;
  for (double t = 0.0; t <= span + 1e-9; t += 0.5) {
    float zero[2] = {min_x < 0 ? 0.0f : 0.0f, (float)min_y};
    double x, y;
    map(&v, p->samples[0].t + t, zero, &x, &y);
    cairo_move_to(cr, x, height - margin - panel + 8);
    cairo_line_to(cr, x, height - margin + 8);
    cairo_stroke(cr);
    char label[32];
    snprintf(label, sizeof label, "%.1f s", t);
    cairo_move_to(cr, x - 10, height - margin + 22);
    cairo_show_text(cr, label);
  }

  /* Tip trails: simulated solid orange, animated dashed grey. */
  for (int pass = 0; pass < 2; pass++) {
    bool animated = pass == 0;
    double dash = 4.0;
    cairo_set_dash(cr, animated ? &dash : NULL, animated ? 1 : 0, 0);
    cairo_set_line_width(cr, animated ? 1.0 : 1.5);
    if (animated) cairo_set_source_rgba(cr, 0.4, 0.4, 0.4, 0.7);
    else cairo_set_source_rgba(cr, 0.95, 0.55, 0.1, 0.9);
    for (uint32_t i = 0; i < p->bone_count; i++) {
      if (!p->tip[i]) continue;
      for (uint32_t k = 0; k < p->count; k++) {
        const sample *s = &p->samples[k];
        double x, y;
        map(&v, s->t, animated ? s->animated[i] : s->drawn[i], &x, &y);
        if (k == 0) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
      }
      cairo_stroke(cr);
    }
  }

  /* Poses every POSE_EVERY samples: animated dashed blue, simulated solid dark red, with the
   * colliders (green) and strand radii (faint red circles) the debug draw reported then. */
  for (uint32_t k = 0; k < p->count; k += POSE_EVERY) {
    const sample *s = &p->samples[k];
    draw_colliders(cr, &v, s);
    draw_radii(cr, p, &v, s);
    double dash = 3.0;
    cairo_set_dash(cr, &dash, 1, 0);
    cairo_set_line_width(cr, 1.2);
    cairo_set_source_rgb(cr, 0.2, 0.35, 0.8);
    draw_pose(cr, p, &v, s, true);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 2.0);
    cairo_set_source_rgb(cr, 0.6, 0.05, 0.1);
    draw_pose(cr, p, &v, s, false);
  }

  /* Lower panel: each tip's lag behind its animated position along the walk (forward axis),
   * against time: the sway as a waveform, easy to compare between frame rates. */
  double lag_max = 1e-3;
  for (uint32_t k = 0; k < p->count; k++)
    for (uint32_t i = 0; i < p->bone_count; i++)
      if (p->tip[i]) lag_max = fmax(lag_max, fabs(p->samples[k].drawn[i][0] - p->samples[k].animated[i][0]));
  double mid = height - margin - panel / 2.0, half = panel / 2.0 - 12.0;
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
  cairo_set_line_width(cr, 1.0);
  cairo_move_to(cr, v.x0, mid);
  cairo_line_to(cr, width - margin, mid);
  cairo_stroke(cr);
  cairo_set_source_rgba(cr, 0.6, 0.05, 0.1, 0.85);
  cairo_set_line_width(cr, 1.5);
  for (uint32_t i = 0; i < p->bone_count; i++) {
    if (!p->tip[i]) continue;
    for (uint32_t k = 0; k < p->count; k++) {
      const sample *s = &p->samples[k];
      float zero[2] = {0.0f, 0.0f};
      double x, y;
      map(&v, s->t, zero, &x, &y);
      double lag = s->drawn[i][0] - s->animated[i][0];
      y = mid - lag / lag_max * half;
      if (k == 0) cairo_move_to(cr, x, y);
      else cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
  }
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_font_size(cr, 12);
  char lag_label[96];
  snprintf(lag_label, sizeof lag_label, "tip offset from the animated pose along the walk (+-%.2f units)", lag_max);
  cairo_move_to(cr, margin, height - margin - panel + 4);
  cairo_show_text(cr, lag_label);

  cairo_set_dash(cr, NULL, 0, 0);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 16);
  char heading[200];
  snprintf(heading, sizeof heading,
           "tress-bot sway at %d fps: %u bones, side view in the root frame (forward right), %.1f s, time runs right",
           p->fps, p->bone_count, span);
  cairo_move_to(cr, margin, 28);
  cairo_show_text(cr, heading);
  cairo_set_font_size(cr, 12);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_move_to(cr, margin, 48);
  cairo_show_text(cr, "dashed blue: animated pose   solid red: simulated pose   orange: tip trails (simulated)   "
                      "dashed grey: tip trails (animated)   green: colliders (dashed: inside)   circles: strand radii");

  cairo_status_t st = cairo_surface_write_to_png(surface, path);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  /* The picture is the bot's last use of cairo: drop cairo's and fontconfig's process-wide font
   * caches so a sanitizer build of tress-bot --picture exits leak-free. */
  cairo_debug_reset_static_data();
#ifdef TRESS_HAVE_FONTCONFIG
  FcFini();
#endif
  if (st != CAIRO_STATUS_SUCCESS) {
    fprintf(stderr, "tress-bot: writing %s: %s\n", path, cairo_status_to_string(st));
    return -1;
  }
  return 0;
}
#else
int bot_picture_write(bot_picture *p, const char *path) {
  (void)p, (void)path;
  fprintf(stderr, "tress-bot: built without cairo; --picture is unavailable\n");
  return -1;
}
#endif
