/* A skeleton's open -> configure -> load -> attach (skel.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live/session.h"
#include "live/skel.h"

int xp_startup_stopped(char *why, size_t whylen)
{
	if (!xp_stop)
		return 0;
	snprintf(why, whylen, "stopped by a signal during start-up");
	return -EINTR;
}

int xp_skel_open(struct xp_kside **out, const struct xp_skel_ops *ops,
		 const struct xp_skel_steps *s, char *why, size_t whylen)
{
	void *skel;
	struct xp_kside *k;
	int err;

	if ((err = xp_startup_stopped(why, whylen))) {
		if (s->priv_free)
			s->priv_free(s->priv);
		return err;
	}
	if (!(skel = ops->open())) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		if (s->priv_free)
			s->priv_free(s->priv);
		return err;
	}
	if (!(k = xp_kside_new(skel, ops->destroy))) {
		ops->destroy(skel);
		if (s->priv_free)
			s->priv_free(s->priv);
		return -ENOMEM;
	}
	k->priv = s->priv;
	k->priv_free = s->priv_free;
	k->hook = s->hook;
	ops->bind(skel, k);
	if (s->f)
		ops->filters(skel, s->f);
	err = s->configure ? s->configure(k, s->ctx, why, whylen) : 0;
	if (!err)
		err = xp_live_share_maps(s->share, k->events, k->drops, why, whylen);
	/* loading is the longest step (the verifier): not begun after a signal */
	if (!err)
		err = xp_startup_stopped(why, whylen);
	if (!err && (err = ops->load(skel))) {
		if (s->load_why)
			s->load_why(s->ctx, err, why, whylen);
		else
			snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
	}
	if (!err)
		err = xp_startup_stopped(why, whylen);
	if (!err && s->attach)
		err = s->attach(k, s->ctx, why, whylen);
	/* a load the signal broke off is that stop, not a failure to say */
	if (err && err != -EINTR && xp_stop)
		err = xp_startup_stopped(why, whylen);
	if (err) {
		xp_kside_close(k);
		return err;
	}
	*out = k;
	return 0;
}
