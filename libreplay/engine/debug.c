/* debug.c: what a debugger reads and writes during a replay (libreplay/gdb/libreplay.py).
 *
 * The gdb extension asks for stops by writing (thread, count) pairs into
 * rp_debug.stops while the program is stopped: its `replay stop-at`, and the counts
 * where a breakpoint's `$rcount` condition turns true or false. The replay engine
 * keeps a thread's counter from running past its nearest requested count (the nearer
 * of it and the next logged preemption), and when the counter reaches it,
 * rp_debug_stopped runs: the extension has a breakpoint there. Nothing here changes
 * the schedule: the counter only overflows once more.
 *
 * Stepping over a preemption: gdb, asked to step a thread that the replay's trap (or
 * the recording's tick) preempts, would let the program run with a breakpoint at the
 * interrupted pc, and every other green thread runs the same code: each pass is a
 * stop. So while it steps, the extension sets step_tid, and a preemption of that
 * thread stops in rp_debug_preempting first; it then sets resume_tid and continues,
 * and rp_debug_resumed stops when that thread runs again, with no breakpoint in the
 * program meanwhile. Neither changes the schedule.
 *
 * Between two stops the debugger says which other threads ran and how many
 * preemptions passed: the runtime counts switches and preemptions, and notes in each
 * thread the switch that last started it (rp_debug_switched). */
#include "engine/engine.h"

/* volatile: the debugger writes it while the program is stopped. */
volatile struct rp_debug rp_debug = {.version = RP_DEBUG_VERSION};

/* Never inlined or merged: its address is where the debugger stops. */
__attribute__((noinline, noclone, used)) void rp_debug_stopped(void)
{
	__asm__ volatile("" ::: "memory");
}

uint64_t rp_debug_clip(int tid, uint64_t now, uint64_t left)
{
	int n = rp_debug.nstops < RP_DEBUG_STOPS ? rp_debug.nstops : RP_DEBUG_STOPS;
	for (int i = 0; i < n; i++) {
		const volatile struct rp_debug_stop *s = &rp_debug.stops[i];
		if (s->tid == tid && s->count > now && s->count - now < left)
			left = s->count - now;
	}
	return left;
}

void rp_debug_check(int tid, uint64_t now)
{
	int n = rp_debug.nstops < RP_DEBUG_STOPS ? rp_debug.nstops : RP_DEBUG_STOPS;
	bool hit = false;
	for (int i = 0; i < n; i++) {
		volatile struct rp_debug_stop *s = &rp_debug.stops[i];
		if (s->tid == tid && s->count == now) {
			s->tid = 0; /* once: a continue goes on */
			hit = true;
		}
	}
	if (!hit)
		return;
	rp_debug.hit_tid = tid;
	rp_debug.hit_count = now;
	rp_debug_stopped();
}

__attribute__((noinline, noclone, used)) void rp_debug_preempting(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noclone, used)) void rp_debug_resumed(void)
{
	__asm__ volatile("" ::: "memory");
}

void rp_debug_preempt_begin(int tid)
{
	if (rp_debug.step_tid == tid)
		rp_debug_preempting();
}

void rp_debug_preempt_end(int tid)
{
	if (rp_debug.resume_tid != tid)
		return;
	rp_debug.resume_tid = 0;
	rp_debug_resumed();
}

void rp_debug_switched(struct rp_thread *next, bool preempted)
{
	rp_debug.switches++;
	rp_debug.preemptions += preempted;
	next->ran_at = rp_debug.switches;
}
