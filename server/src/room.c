/* Rooms
 * -----
 * A room is a name, its members and its characters in spawn order. It exists while it has a
 * member: the last member leaving takes every character with it (each owner's characters are
 * removed when the owner leaves, so an empty room has none). Joining replays the room's
 * characters to the joiner in spawn order, so a late joiner ends in the state everyone else
 * reached event by event. A peer is in at most one room; there is no leave message (leaving is
 * disconnecting), which keeps ownership and cleanup in one place. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agones.h"
#include "room_lease.h"
#include "server.h"

static void publish_rooms(tress_server *s) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr) return;
  for (uint32_t i = 0; i < s->cfg.max_peers; i++) {
    tress_room *r = &s->rooms[i];
    if (!r->used) continue;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddNumberToObject(o, "members", r->member_count);
    cJSON_AddNumberToObject(o, "characters", r->character_count);
    cJSON_AddItemToArray(arr, o);
  }
  tress_metrics_set_rooms(&s->metrics, cJSON_PrintUnformatted(arr));
  cJSON_Delete(arr);
  atomic_store(&s->metrics.rooms, s->live_rooms);
}

static int32_t find_room(tress_server *s, const char *name) {
  for (uint32_t i = 0; i < s->cfg.max_peers; i++)
    if (s->rooms[i].used && strcmp(s->rooms[i].name, name) == 0) return (int32_t)i;
  return -1;
}

static int32_t create_room(tress_server *s, const char *name) {
  for (uint32_t i = 0; i < s->cfg.max_peers; i++) {
    tress_room *r = &s->rooms[i];
    if (r->used) continue;
    memset(r, 0, sizeof *r);
    r->members = calloc(s->cfg.max_room_peers, sizeof *r->members);
    if (!r->members) return -1;
    r->used = true;
    snprintf(r->name, sizeof r->name, "%s", name);
    s->live_rooms++;
    tress_agones_rooms_changed(s->agones);
    return (int32_t)i;
  }
  return -1;
}

void tress_room_join(tress_server *s, uint32_t slot, const tress_msg_join_room *m) {
  tress_peer *p = &s->peers[slot];
  if (p->room >= 0) {
    tress_net_send_error(s, slot, TRESS_CODE_ALREADY_IN_ROOM, TRESS_MSG_JOIN_ROOM, 0, 0, "already in room %s",
                         s->rooms[p->room].name);
    return;
  }
  if (s->draining) {
    tress_net_send_error(s, slot, TRESS_CODE_SERVER_SHUTTING_DOWN, TRESS_MSG_JOIN_ROOM, 0, 0, "server shutting down");
    return;
  }
  if (!tress_auth_check_join(s, slot, m->room)) return;
  if (!tress_room_lease_admit(s, slot, m->room)) return; /* redirected, or waiting on the fleet's lease */
  int32_t ri = find_room(s, m->room);
  if (ri >= 0 && s->rooms[ri].member_count >= s->cfg.max_room_peers) {
    tress_net_send_error(s, slot, TRESS_CODE_ROOM_FULL, TRESS_MSG_JOIN_ROOM, 0, 0, "room is full (%u peers)",
                         s->cfg.max_room_peers);
    return;
  }
  if (ri < 0 && (ri = create_room(s, m->room)) >= 0) tress_room_lease_opened(s, ri);
  if (ri < 0) {
    tress_net_send_error(s, slot, TRESS_CODE_INTERNAL, TRESS_MSG_JOIN_ROOM, 0, 0, "cannot create room");
    return;
  }
  tress_room *r = &s->rooms[ri];
  r->members[r->member_count++] = slot;
  p->room = ri;

  tress_msg out;
  memset(&out, 0, sizeof out);
  out.type = TRESS_MSG_ROOM_JOINED;
  snprintf(out.room_joined.room, sizeof out.room_joined.room, "%s", r->name);
  tress_wire_peer *members = calloc(r->member_count, sizeof *members);
  if (members) {
    for (uint32_t i = 0; i < r->member_count; i++) {
      members[i].peer_id = s->peers[r->members[i]].peer_id;
      snprintf(members[i].name, sizeof members[i].name, "%s", s->peers[r->members[i]].name);
    }
    out.room_joined.member_count = r->member_count;
    out.room_joined.members = members;
  }
  tress_net_send(s, slot, &out);
  free(members);
  tress_replay_start(s, slot); /* paced by max_peer_queued_bytes: the rest follows as acks arrive */
  char q[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "room_joined", "peer=%u room=%s members=%u characters=%u", p->peer_id,
                  tress_log_quote(r->name, q, sizeof q), r->member_count, r->character_count);
  publish_rooms(s);
}

void tress_room_leave(tress_server *s, uint32_t slot) {
  tress_peer *p = &s->peers[slot];
  tress_room_lease_forget_join(s, slot);
  tress_replay_stop(s, slot);
  if (p->room < 0) return;
  tress_room *r = &s->rooms[p->room];
  for (uint32_t i = 0; i < r->member_count; i++) {
    if (r->members[i] != slot) continue;
    memmove(&r->members[i], &r->members[i + 1], (r->member_count - i - 1) * sizeof *r->members);
    r->member_count--;
    break;
  }
  int32_t ri = p->room;
  p->room = -1;
  if (r->member_count == 0) {
    tress_room_lease_closed(s, ri);
    free(r->members);
    free(r->characters);
    memset(r, 0, sizeof *r);
    s->live_rooms--;
    tress_agones_rooms_changed(s->agones);
  }
  publish_rooms(s);
}

void tress_room_add_character(tress_server *s, int32_t room, uint32_t character_id) {
  tress_room *r = &s->rooms[room];
  if (r->character_count == r->character_cap) {
    uint32_t cap = r->character_cap ? r->character_cap * 2 : 8;
    uint32_t *n = realloc(r->characters, cap * sizeof *n);
    if (!n) return;
    r->characters = n;
    r->character_cap = cap;
  }
  r->characters[r->character_count++] = character_id;
  publish_rooms(s);
}

void tress_room_remove_character(tress_server *s, int32_t room, uint32_t character_id) {
  if (room < 0 || !s->rooms[room].used) return;
  tress_room *r = &s->rooms[room];
  for (uint32_t i = 0; i < r->character_count; i++) {
    if (r->characters[i] != character_id) continue;
    tress_replay_character_removed(s, room, i);
    memmove(&r->characters[i], &r->characters[i + 1], (r->character_count - i - 1) * sizeof *r->characters);
    r->character_count--;
    break;
  }
  publish_rooms(s);
}
