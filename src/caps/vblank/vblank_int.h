/* Between the files of one capability only: not part of its interface. */
#ifndef XP_CAPS_VBLANK_VBLANK_INT_H
#define XP_CAPS_VBLANK_VBLANK_INT_H

#include "caps/vblank/vblank_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank.h"

unsigned int vbl_kind_of(uint32_t type, uint32_t nr);
struct xp_vbl_crtc *vbl_crtc_of(struct xp_vbl_state *s, int32_t dev, int32_t crtc);
struct xp_vbl_file *vbl_file_find(struct xp_vbl_state *s, uint64_t file);
int32_t vbl_file_dev(const struct xp_vbl_state *s, uint64_t file);
struct xp_vbl_client *vbl_client_of(struct xp_vbl_state *s, uint64_t file, int32_t crtc);
bool vbl_vblank_time(const struct xp_vbl_crtc *c, uint32_t seq, uint64_t *t);
void vbl_settle(struct xp_vbl_state *s, struct xp_vbl_delivery *d, bool has_time, uint64_t vt);
int32_t vbl_id_pipe(const struct xp_vbl_state *s, int32_t dev, uint32_t id);
void vbl_take_asker(struct xp_vbl_client *cl, uint32_t pid, uint32_t tid, const char *comm);
void vbl_on_pipe(struct xp_vbl_state *s, const struct xp_vbl_event *ev);
void vbl_on_submit(struct xp_vbl_state *s, const struct xp_vbl_event *ev);
void vbl_on_delivered(struct xp_vbl_state *s, const struct xp_vbl_event *ev);

#endif
