/* input.c: INPUT records in words. The layouts are the runtime's (engine/session.h codes,
 * in_clock.c and io_park.c structures); a size that does not fit the kind prints as hex. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "engine/session.h"
#include "inputs/in_world_calls.h"

static void hex(const uint8_t *p, size_t n, char *out, size_t outlen)
{
	size_t show = n > 32 ? 32 : n, k = 0;
	out[0] = 0;
	for (size_t i = 0; i < show && k + 3 < outlen; i++)
		k += (size_t)snprintf(out + k, outlen - k, "%02x", p[i]);
	if (show < n && k + 4 < outlen)
		snprintf(out + k, outlen - k, "...");
}

/* "objects: N: name, name, ...": the last part of each path (replay-pack lists them whole). */
static void objects(const uint8_t *d, size_t len, char *out, size_t outlen)
{
	char names[512];
	size_t k = 0, count = 0;
	names[0] = '\0';
	for (size_t i = 0; i < len; count++) {
		const uint8_t *line = d + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		const uint8_t *path = line;
		for (int tabs = 0; tabs < 3 && path; tabs++) {
			path = memchr(path, '\t', n - (size_t)(path - line));
			if (path)
				path++;
		}
		if (path) {
			const uint8_t *p = path, *name = path;
			for (; p < line + n; p++)
				if (*p == '/')
					name = p + 1;
			if (k < sizeof names)
				k += (size_t)snprintf(names + k, sizeof names - k, "%s%.*s", k ? ", " : "",
						      (int)(line + n - name), (const char *)name);
		}
		i += n + 1;
	}
	snprintf(out, outlen, "objects: %zu: %s", count, names);
}

static const char *si_code_name(int code)
{
	switch (code) {
	case SI_USER:
		return "SI_USER";
	case SI_KERNEL:
		return "SI_KERNEL";
	case SI_QUEUE:
		return "SI_QUEUE";
	case SI_TIMER:
		return "SI_TIMER";
	case SI_TKILL:
		return "SI_TKILL";
	case SI_MESGQ:
		return "SI_MESGQ";
	case SI_ASYNCIO:
		return "SI_ASYNCIO";
	}
	return "";
}

/* SIGNAL_AT: u8 where, u64 count (or question), u64 pc, siginfo_t (engine/session.h). */
static void signal_at(const uint8_t *d, char *out, size_t outlen)
{
	uint64_t count, pc;
	siginfo_t si;
	memcpy(&count, d + 1, 8);
	memcpy(&pc, d + 9, 8);
	memcpy(&si, d + 17, sizeof si);
	const char *name = sigabbrev_np(si.si_signo);
	char rt[16];
	if (!name && si.si_signo >= SIGRTMIN && si.si_signo <= SIGRTMAX) {
		snprintf(rt, sizeof rt, "RTMIN+%d", si.si_signo - SIGRTMIN);
		name = rt;
	}
	char where[80];
	if (d[0] == 3)
		snprintf(where, sizeof where, "at count %llu pc %#llx", (unsigned long long)count,
			 (unsigned long long)pc);
	else
		snprintf(where, sizeof where, "while every thread waited (question %llu)",
			 (unsigned long long)count);
	const char *code = si_code_name(si.si_code);
	int n = snprintf(out, outlen, "signal %d (SIG%s) from outside %s: code %d%s%s", si.si_signo,
			 name ? name : "?", where, si.si_code, *code ? " " : "", code);
	if (n < 0 || (size_t)n >= outlen)
		return;
	if (si.si_code == SI_TIMER) /* the kernel's timer fields share the pid's place */
		snprintf(out + n, outlen - (size_t)n, " timer %d overrun %d value %#llx", si.si_timerid,
			 si.si_overrun, (unsigned long long)(uintptr_t)si.si_value.sival_ptr);
	else if (si.si_signo == SIGCHLD && si.si_code > 0)
		snprintf(out + n, outlen - (size_t)n, " pid %d uid %u status %d", (int)si.si_pid,
			 (unsigned)si.si_uid, si.si_status);
	else
		snprintf(out + n, outlen - (size_t)n, " pid %d uid %u value %#llx", (int)si.si_pid,
			 (unsigned)si.si_uid, (unsigned long long)(uintptr_t)si.si_value.sival_ptr);
}

/* A wait status (wait(2)'s macros, spelled out: the layout is Linux's), after what. */
static void dump_status(const char *what, int st, const char *more, char *out, size_t outlen)
{
	if ((st & 0x7f) == 0)
		snprintf(out, outlen, "%s exited %d%s", what, (st >> 8) & 0xff, more);
	else if ((st & 0xff) == 0x7f)
		snprintf(out, outlen, "%s stopped by signal %d%s", what, (st >> 8) & 0xff, more);
	else if (st == 0xffff)
		snprintf(out, outlen, "%s continued%s", what, more);
	else
		snprintf(out, outlen, "%s killed by signal %d%s%s", what, st & 0x7f,
			 st & 0x80 ? " (core dumped)" : "", more);
}

/* INPUT CHILD: pt_fork.c's calls, and sig_api.c's signals to another process. */
static void dump_child(const int32_t w[4], char *out, size_t outlen)
{
	static const char *const name[] = {"?", "fork", "_Fork", "posix_spawn", "posix_spawnp",
					   "system", "kill", "sigqueue", "pidfd_open", "exec"};
	const char *call = w[0] > 0 && w[0] <= 9 ? name[w[0]] : "?";
	if (w[0] == 5 && w[1] == -1)
		snprintf(out, outlen, "system: failed, errno %d", w[2]);
	else if (w[0] == 5)
		dump_status("system: the shell", w[1], "", out, outlen);
	else if (w[0] == 9 && w[1] == 0)
		snprintf(out, outlen, "exec: the process image is replaced here");
	else if (w[0] == 8 && w[1] >= 0)
		snprintf(out, outlen, "pidfd_open: descriptor %d", w[1]);
	else if (w[0] >= 6 && w[0] <= 7 && w[1] == 0)
		snprintf(out, outlen, "%s of another process: sent", call);
	else if (w[0] >= 3 && w[0] <= 4 && w[2])
		snprintf(out, outlen, "%s: failed, error %d", call, w[2]);
	else if (w[1] < 0)
		snprintf(out, outlen, "%s: failed, errno %d", call, w[2]);
	else
		snprintf(out, outlen, "%s: child %d", call, w[1]);
}

void rp_dump_input(unsigned kind, const uint8_t *d, size_t len, char *out, size_t outlen)
{
	int64_t a, b;
	int32_t w[4];
	switch (kind) {
	case RP_INPUT_SCHED_CLOCK:
	case RP_INPUT_TIMESTAMP:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "%s %lld.%09lld s", kind == RP_INPUT_TIMESTAMP ? "timestamp" : "sleep clock",
			 (long long)(a / 1000000000), (long long)(a % 1000000000));
		return;
	case RP_INPUT_CLOCK_GETTIME: /* int32 clock, rc, errno, pad; struct timespec */
		if (len != 32)
			break;
		memcpy(w, d, 16);
		memcpy(&a, d + 16, 8);
		memcpy(&b, d + 24, 8);
		if (w[1])
			snprintf(out, outlen, "clock_gettime(%d) failed, errno %d", w[0], w[2]);
		else
			snprintf(out, outlen, "clock_gettime(%d) = %lld.%09lld s", w[0], (long long)a, (long long)b);
		return;
	case RP_INPUT_GETTIMEOFDAY: /* struct timeval */
		if (len != 16)
			break;
		memcpy(&a, d, 8);
		memcpy(&b, d + 8, 8);
		snprintf(out, outlen, "gettimeofday = %lld.%06lld s", (long long)a, (long long)b);
		return;
	case RP_INPUT_TIME:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "time = %lld", (long long)a);
		return;
	case RP_INPUT_IO_READY:
	case RP_INPUT_IO_BLOCK:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, kind == RP_INPUT_IO_READY ? "io ready: question %lld" :
			 "io block: try %lld", (long long)a);
		return;
	case RP_INPUT_LAYOUT: /* u32 flags, i32 errno, u64 exe, heap, libc, stack end, vdso */
		if (len < 48)
			break;
		memcpy(w, d, 8);
		uint64_t at[5];
		memcpy(at, d + 8, sizeof at);
		snprintf(out, outlen, "layout: ASLR %s%s%s, exe %#llx heap %#llx libc %#llx stack end "
			 "%#llx vdso %#llx", w[0] & 1 ? "on" : "off", w[0] & 2 ? ", valgrind" : "",
			 w[1] ? ", personality failed" : "", (unsigned long long)at[0],
			 (unsigned long long)at[1], (unsigned long long)at[2],
			 (unsigned long long)at[3], (unsigned long long)at[4]);
		return;
	case RP_INPUT_OBJECTS: /* text: role, address, build-id, path; one object a line */
		objects(d, len, out, outlen);
		return;
	case RP_INPUT_WORLD: { /* i32 call, i32 fd, i64 result, u64 bytes that follow */
		static const char *const calls[] = {
#define NAME(name, num, text) [num] = text,
			IN_WORLD_CALLS(NAME)
#undef NAME
		};
		if (len != 24)
			break;
		memcpy(w, d, 8);
		memcpy(&a, d + 8, 8);
		memcpy(&b, d + 16, 8);
		const char *name = w[0] > 0 && (size_t)w[0] < sizeof calls / sizeof calls[0] && calls[w[0]]
			? calls[w[0]] : "?";
		if (a < 0 && a > -4096)
			snprintf(out, outlen, "world: %s on %d failed, errno %lld", name, w[1], (long long)-a);
		else
			snprintf(out, outlen, "world: %s on %d gave %lld, %llu bytes", name, w[1], (long long)a,
				 (unsigned long long)b);
		return;
	}
	case RP_INPUT_SIGNAL_AT:
		if (len != RP_SIGNAL_AT_LEN)
			break;
		signal_at(d, out, outlen);
		return;
	case RP_INPUT_TIMER: /* i32 call, result, errno, pad; 32 bytes of value */
		if (len != 48)
			break;
		memcpy(w, d, 16);
		int64_t tv[4];
		memcpy(tv, d + 16, sizeof tv);
		static const char *const calls[] = {"?", "alarm", "getitimer", "setitimer (old)",
						    "timer_gettime", "timer_settime (old)",
						    "timer_getoverrun"};
		const char *call = w[0] > 0 && w[0] <= 6 ? calls[w[0]] : calls[0];
		if (w[1] < 0)
			snprintf(out, outlen, "%s failed, errno %d", call, w[2]);
		else if (w[0] == 1 || w[0] == 6)
			snprintf(out, outlen, "%s = %d", call, w[1]);
		else /* interval, then value: (seconds, micro- or nanoseconds) each */
			snprintf(out, outlen, "%s: interval %lld.%lld value %lld.%lld", call,
				 (long long)tv[0], (long long)tv[1], (long long)tv[2], (long long)tv[3]);
		return;
	case RP_INPUT_IO_COUNT: /* u64 try, i64 count or -errno */
		if (len != 16)
			break;
		memcpy(&a, d, 8);
		memcpy(&b, d + 8, 8);
		if (b < 0)
			snprintf(out, outlen, "io count: try %lld failed, errno %lld", (long long)a,
				 (long long)-b);
		else
			snprintf(out, outlen, "io count: try %lld moved %lld bytes", (long long)a,
				 (long long)b);
		return;
	case RP_INPUT_CHILD: /* i32 call, value, error, 0 */
		if (len != 16)
			break;
		memcpy(w, d, 16);
		dump_child(w, out, outlen);
		return;
	case RP_INPUT_WAIT: /* i64 result, i32 status, 0; struct rusage if asked for */
		if (len < 16)
			break;
		memcpy(&a, d, 8);
		memcpy(w, d + 8, 4);
		if (a < 0)
			snprintf(out, outlen, "wait: failed, errno %lld", (long long)-a);
		else if (a == 0)
			snprintf(out, outlen, "wait: no child changed state (WNOHANG)");
		else
		{
			char what[40];
			snprintf(what, sizeof what, "wait: pid %lld", (long long)a);
			dump_status(what, w[0], len > 16 ? ", rusage" : "", out, outlen);
		}
		return;
	case RP_INPUT_WAITID: /* i64 result; i32 signo, errno, code, pid, uid, status */
		if (len != 32)
			break;
		memcpy(&a, d, 8);
		int32_t f[6];
		memcpy(f, d + 8, sizeof f);
		if (a < 0)
			snprintf(out, outlen, "waitid: failed, errno %lld", (long long)-a);
		else if (f[3] == 0)
			snprintf(out, outlen, "waitid: no child changed state (WNOHANG)");
		else
			snprintf(out, outlen, "waitid: pid %d, si_code %d, si_status %d", f[3], f[2], f[5]);
		return;
	case RP_INPUT_WAIT_POLL: /* u64 try */
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "wait without a pidfd: polls from try %lld", (long long)a);
		return;
	case RP_INPUT_EXIT_TURN: /* i32 thread, i32 priority */
		if (len != 8)
			break;
		memcpy(w, d, 8);
		snprintf(out, outlen, "main's return or exit(): the others' turn first (thread %d, "
			 "priority %d)", w[0], w[1]);
		return;
	case RP_INPUT_SLEEPER_TURN: /* i32 thread to run next, i32 sleeper */
		if (len != 8)
			break;
		memcpy(w, d, 8);
		snprintf(out, outlen, "a demotion waits for a sleeper: thread %d waits until thread "
			 "%d's deadline", w[0], w[1]);
		return;
	case RP_INPUT_TCACHE: /* u64 key */
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "malloc key (tcache) %016llx", (unsigned long long)a);
		return;
	}
	char h[80];
	hex(d, len, h, sizeof h);
	snprintf(out, outlen, "%s", len ? h : "(empty)");
}
