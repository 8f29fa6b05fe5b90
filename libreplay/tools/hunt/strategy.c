/* strategy.c: the strategy a seed runs under --mode hunt, for the JSON lines: the
 * runtime's own draw (engine/hunt/hunt.c, compiled into replay-hunt too), from the
 * seed and the --hunt-depth and --hunt-strategy given with --pass, since a seed names
 * its schedule (and so its strategy) exactly. */
#include <stdlib.h>
#include <string.h>

#include "engine/hunt/hunt.h"
#include "hunt.h"

/* The value of the runtime flag name among o's --pass flags (the last one given;
 * "--name=V" or "--name" "V", as the runtime reads them), else NULL. */
static const char *pass_value(const struct hunt_opts *o, const char *name)
{
	const char *v = NULL;
	size_t n = strlen(name);
	for (int i = 0; i < o->npass; i++) {
		const char *a = o->pass[i];
		if (!strncmp(a, name, n) && a[n] == '=')
			v = a + n + 1;
		else if (!strcmp(a, name) && i + 1 < o->npass)
			v = o->pass[++i];
	}
	return v;
}

const char *hunt_seed_strategy(const struct hunt_opts *o, uint64_t seed)
{
	static const char *const names[] = {"hunt", "hunt:windows", "hunt:accesses", "hunt:pct",
					    "hunt:quick", "hunt:delays"};
	static const char *const bare[] = RP_HUNT_STRATEGY_NAMES;
	if (o->mode != HUNT_MODE_HUNT)
		return o->mode_name;
	struct rp_hunt_params p = {seed, 0, false, RP_HUNT_DRAWN, NULL, NULL};
	const char *s = o->strategy ? o->strategy : pass_value(o, "--hunt-strategy");
	for (int i = RP_HUNT_DRAWN + 1; s && i < RP_HUNT_STRATEGIES; i++)
		if (!strcmp(s, bare[i]))
			p.strategy = i;
	const char *d = pass_value(o, "--hunt-depth");
	if (d)
		p.depth = atoi(d);
	rp_hunt_init(&p);
	int got = rp_hunt_strategy();
	return got > RP_HUNT_DRAWN && got < RP_HUNT_STRATEGIES ? names[got] : o->mode_name;
}
