/* in_ids.c: the process's identity: getpid, getppid and gettid differ from run to
 * run, and programs print them, put them in file names and seed generators with
 * them (srand(time(NULL) ^ getpid())): recorded, and the replay returns them. The
 * replay's real ids differ, so kill, sigqueue and tgkill (sig_api.c) map a recorded id back to the real
 * one (kill(getpid(), SIGUSR1) reaches the replaying process itself). The user and
 * group ids are recorded too: a recording made as root replays as an ordinary user
 * (the files it read come from the log: docs/inputs.md, "The world"). */
#include "engine/engine.h"
#include "inputs/inputs.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { ID_PID, ID_PPID, ID_TID, ID_UID, ID_EUID, ID_GID, ID_EGID, NIDS };
static const long id_sys[NIDS] = {SYS_getpid, SYS_getppid, SYS_gettid, SYS_getuid, SYS_geteuid,
				  SYS_getgid, SYS_getegid};
static const char *const id_name[NIDS] = {"getpid", "getppid", "gettid", "getuid", "geteuid",
					  "getgid", "getegid"};
/* Replaying: the value each call last gave, and the real one then. */
static pid_t replayed[NIDS], real_at_replay[NIDS];

struct id_value {
	int32_t which, value;
};

static pid_t id(int which)
{
	struct id_value v = {0, 0};
	if (rp_input_replay(RP_INPUT_ID, &v, sizeof v)) {
		if (v.which != which)
			rp_diverge("thread %d: %s, the recording called %s", rp_cur->tid,
					  id_name[which], v.which >= 0 && v.which < NIDS ?
					  id_name[v.which] : "?");
		replayed[which] = v.value;
		real_at_replay[which] = (pid_t)rp_syscall(id_sys[which]);
	} else {
		v.which = which;
		v.value = (int32_t)rp_syscall(id_sys[which]);
		rp_input_record(RP_INPUT_ID, &v, sizeof v);
	}
	return v.value;
}

pid_t getpid(void)
{
	return id(ID_PID);
}

pid_t getppid(void)
{
	return id(ID_PPID);
}

pid_t gettid(void)
{
	return id(ID_TID);
}

uid_t getuid(void)
{
	return (uid_t)id(ID_UID);
}

uid_t geteuid(void)
{
	return (uid_t)id(ID_EUID);
}

gid_t getgid(void)
{
	return (gid_t)id(ID_GID);
}

gid_t getegid(void)
{
	return (gid_t)id(ID_EGID);
}

/* A pid the replay handed out is the real one it stood for (only while replaying:
 * a forked child and a recording see real ids). kill and sigqueue (sig_api.c) use
 * it too. */
pid_t in_real_id(pid_t p)
{
	if (!rp_replaying || p <= 0)
		return p;
	for (int k = ID_PID; k <= ID_TID; k++)
		if (replayed[k] && p == replayed[k])
			return real_at_replay[k];
	return p;
}
