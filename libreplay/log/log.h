/* log.h: the replay log: its writer and its reader (docs/log-format.md).
 *
 * A log is a header (what was recorded, and how) followed by checksummed blocks of
 * compact records: PREEMPT (a time-slice preemption: thread, its count, its PC),
 * TIMEOUT, INPUT, THREAD_END, and one END at the very end. Each block decodes on its
 * own, so a log cut short by a crash or SIGKILL is readable up to its last whole block.
 *
 * Writer: every call returns 0, or -1 with errno set. The record calls, rp_log_flush
 * and rp_log_maybe_flush never allocate and only call pwrite(2) (and pread(2): an INPUT's
 * bytes may be stored as a reference to an identical earlier payload, which the
 * writer reads back first; docs/log-format.md, "Stored bytes"), so they may run in a
 * signal handler (the scheduler's timer tick), but the writer is not reentrant: a
 * handler must not interrupt one writer call to make another (block that signal around
 * calls made outside it; a reentrant call fails with EBUSY). rp_log_flush_from_signal
 * is the exception: a crash handler may call it at any time.
 *
 * Reader: rp_log_open checks the header; rp_log_next returns records in order, then a
 * status saying how the log ends. Messages are one line and name the file. */
#ifndef RP_LOG_H
#define RP_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Versions 1 to 3 are read too: 1's END says exited or signaled only; 1 and 2 code
 * INPUT payloads as bytes, preempted counts exactly, and start the model afresh at
 * every block; 1 to 3 store every payload's bytes as they are. */
#define RP_LOG_VERSION 4
#define RP_LOG_BUILD_ID_MAX 64
#define RP_LOG_ERRLEN 512

/* Header flags. */
#define RP_LOG_F_CHAOS 0x0001u /* recorded with the chaos (randomised) scheduler */
#define RP_LOG_F_HUNT 0x0002u  /* recorded with the hunting scheduler: PRIORITY inputs */
/* The build-id field holds a hash of the executable's loadable segments instead
 * (rp_log_code_hash): it had no build-id (ld --build-id=none). */
#define RP_LOG_F_CODE_HASH 0x0004u
#define RP_LOG_F_KNOWN (RP_LOG_F_CHAOS | RP_LOG_F_HUNT | RP_LOG_F_CODE_HASH)
#define RP_LOG_CODE_HASH_LEN 16

/* Limits the writer enforces and the reader checks. */
/* Header bytes, argv included: above the kernel's own bound on a program's argv and
 * environment together (6 MiB: fs/exec.c), so any command line that runs records (at
 * 1 MiB, one of 1.2 MB could not run at all when recording). */
#define RP_LOG_HEADER_MAX (8u << 20)
#define RP_LOG_INPUT_MAX 65536u           /* bytes in one INPUT record */
#define RP_LOG_END_THREADS_MAX 8192u      /* (tid, count) pairs in END */
#define RP_LOG_BLOCK_MAX (256u << 10)     /* payload bytes in one block */
#define RP_LOG_BLOCK_THREADS 256u         /* threads with PREEMPT records in one block */
#define RP_LOG_FLUSH_INTERVAL_NS 2000000ull /* rp_log_maybe_flush's default: 2 ms */
/* The zstd level INPUT payloads of 64 bytes or more are compressed at, by default
 * (docs/log-format.md, "Stored bytes": the measurement that chose it). */
#define RP_LOG_ZSTD_LEVEL 1
/* The INPUT kind of the filler a writer puts at the end of a block to end it at a 4 KiB
 * boundary of the file (tid 0..3, zero bytes); readers return it like any INPUT. */
#define RP_LOG_INPUT_PAD 255

enum rp_log_kind {
	RP_LOG_PREEMPT = 1, /* tid was preempted at (count, pc) by the time slice */
	RP_LOG_TIMEOUT,     /* tid's sleep or timed wait expired at scheduling point pos */
	RP_LOG_INPUT,       /* what a recorded system call gave tid: input_kind + bytes */
	RP_LOG_THREAD_END,  /* tid exited with this count */
	RP_LOG_END,         /* the program ended: how, value, every thread's final count */
};

/* END's how. */
#define RP_LOG_EXITED 0   /* value is the exit status */
#define RP_LOG_SIGNALED 1 /* value is the terminating signal */
#define RP_LOG_DEADLOCK 2 /* every thread blocked for good (value: the exit status, 87) */
#define RP_LOG_HANG 3     /* stopped by --timeout (value: the exit status, 88) */
#define RP_LOG_EXECED 4   /* the process image was replaced by execve (value: 0) */

/* END of a deadlock or a hang: each thread's state, the waits-for graph. */
#define RP_LOG_HELD_MAX 8
struct rp_log_wait {
	uint32_t tid;
	uint8_t state;   /* the scheduler's sched_state */
	uint8_t kind;    /* what it waits on: the scheduler's sched_wait_kind */
	uint64_t obj;    /* its address */
	uint32_t owner;  /* the thread that holds it (0: none) */
	uint32_t nheld;  /* the mutexes it holds, the first RP_LOG_HELD_MAX listed */
	uint64_t held[RP_LOG_HELD_MAX];
};
struct rp_log_outcome {
	uint32_t stop_tid;    /* HANG: the thread stopped at (count, pc); 0: none ran */
	uint64_t stop_count, stop_pc;
	uint32_t nwaits;      /* <= RP_LOG_END_THREADS_MAX */
	const struct rp_log_wait *waits;
};

struct rp_log_final {
	uint32_t tid;
	uint64_t count;
};

struct rp_log_record {
	enum rp_log_kind kind;
	uint32_t tid;       /* all kinds but END */
	uint64_t count;     /* PREEMPT, THREAD_END: the thread's SIC count */
	uint64_t pc;        /* PREEMPT: offset from the executable's load base */
	uint64_t pos;       /* TIMEOUT: which scheduling decision (the caller's encoding) */
	uint8_t input_kind; /* INPUT: what kind of value (the caller's codes) */
	uint32_t len;       /* INPUT: bytes at data */
	const uint8_t *data;
	int how;            /* END: RP_LOG_EXITED, RP_LOG_SIGNALED ... RP_LOG_EXECED */
	int value;          /* END: exit status or signal number */
	uint32_t nthreads;  /* END: pairs at threads */
	const struct rp_log_final *threads;
	struct rp_log_outcome outcome; /* END of a DEADLOCK or a HANG */
	/* data and threads belong to the reader and last until its next call. */
};

struct rp_log_header {
	uint16_t version;       /* the reader fills it in; the writer writes RP_LOG_VERSION */
	uint16_t flags;         /* RP_LOG_F_* */
	uint64_t quantum_ns;    /* the time slice */
	uint64_t seed;          /* the chaos scheduler's seed */
	size_t build_id_len;    /* 0 when the executable has none */
	uint8_t build_id[RP_LOG_BUILD_ID_MAX];
	int argc;
	const char *const *argv;
};

/* ---- writer ------------------------------------------------------------------- */

struct rp_log_writer;

struct rp_log_stats {
	uint64_t records;      /* records written to blocks or waiting in the buffer, PADs too */
	uint64_t preempts;     /* of which PREEMPT */
	uint64_t preempt_bits; /* bits the PREEMPT records took, block overhead not included */
	uint64_t pads;         /* of which PAD inputs, ending blocks at 4 KiB boundaries */
	uint64_t blocks;       /* blocks with records (the one being filled included) */
	uint64_t writes;       /* pwrite(2)s of blocks: each block's growing prefix */
	uint64_t bytes;        /* the file's length once the records so far are written */
	uint64_t input_bytes;  /* bytes of INPUT payloads of 64 bytes or more */
	uint64_t zstd_inputs;  /* of those payloads, stored compressed */
	uint64_t ref_inputs;   /* stored as references to an identical earlier one */
};

/* Create (truncate) path, read-write and close-on-exec, and write the header. On
 * failure returns -1 with errno set and a message in err. */
int rp_log_create(const char *path, const struct rp_log_header *h,
		  struct rp_log_writer **out, char *err, size_t errlen);
/* Open path (relative to dirfd: AT_FDCWD or a directory's descriptor) to record a log
 * into, with the care a user's files need (log_target.c): never through a symbolic
 * link, only a regular file (a FIFO or a device is refused before it is opened),
 * emptied only when it holds a libreplay log or nothing ("not a libreplay log, not
 * overwriting"), created 0600 (an existing log's group and other bits are taken off),
 * and locked (flock) for as long as the descriptor stays open: a second recorder of
 * the same file is refused, naming the process that holds it. excl: the file must be
 * new (O_EXCL). The descriptor (read-write where allowed, close-on-exec, O_NONBLOCK
 * until rp_log_create_fd clears it), or -1 with errno set and a one-line reason in err. */
int rp_log_open_target(int dirfd, const char *path, bool excl, char *err, size_t errlen);
/* Does the file fd reads start with a libreplay log's magic? */
bool rp_log_is_log(int fd);
/* The same on an open file descriptor (its O_APPEND cleared, made close-on-exec),
 * which the writer owns from then on, also when this fails. Open for reading too, or
 * the writer makes references only within the block being filled. */
int rp_log_create_fd(int fd, const char *name, const struct rp_log_header *h,
		     struct rp_log_writer **out, char *err, size_t errlen);

int rp_log_preempt(struct rp_log_writer *w, uint32_t tid, uint64_t count, uint64_t pc);
int rp_log_timeout(struct rp_log_writer *w, uint32_t tid, uint64_t pos);
int rp_log_input(struct rp_log_writer *w, uint32_t tid, uint8_t input_kind,
		 const void *data, size_t len);
int rp_log_thread_end(struct rp_log_writer *w, uint32_t tid, uint64_t count);
/* The last record: writes it and flushes. Every later record call fails (EINVAL). */
int rp_log_end(struct rp_log_writer *w, int how, int value,
	       const struct rp_log_final *threads, size_t nthreads);
/* END of a DEADLOCK or a HANG (how), with the threads' states. */
int rp_log_end_outcome(struct rp_log_writer *w, int how, int value,
		       const struct rp_log_final *threads, size_t nthreads,
		       const struct rp_log_outcome *o);

/* A place to come back to: the records so far written and their block ended (as
 * rp_log_flush); rp_log_rewind then takes back every record written after it, an END
 * too, and the file ends there again (ftruncate), as if they had never been written.
 * For an END that may not be the end (an exec that may fail: the log must be whole
 * before it, and go on after it if it returns). Record calls only, no signal handler
 * writing meanwhile: a record it wrote after the mark would go too. */
int rp_log_mark(struct rp_log_writer *w);
int rp_log_rewind(struct rp_log_writer *w);
/* Write the records so far (the block being filled, as it is now, to its place) and end
 * that block: the next record starts another. */
int rp_log_flush(struct rp_log_writer *w);
/* Write the records so far without ending the block: its next write rewrites it whole
 * with more records. */
int rp_log_sync(struct rp_log_writer *w);
/* rp_log_sync if records wait and the last write is the flush interval old or older
 * (2 ms by default); call it often (at each record) with a monotonic clock: a SIGKILL
 * then loses only records younger than the interval. */
int rp_log_maybe_flush(struct rp_log_writer *w, uint64_t now_ns);
void rp_log_set_flush_interval(struct rp_log_writer *w, uint64_t ns);
/* How INPUT payloads of 64 bytes or more are stored: compressed with zstd at
 * zstd_level (1..19; 0: not compressed), and as references to identical earlier
 * payloads (refs). By default RP_LOG_ZSTD_LEVEL and references. A measuring aid
 * (bench/logsize.sh: the log without them); the reader reads any. Before the first
 * record, outside signal handlers (it allocates): 0, or -1 with errno set. */
int rp_log_set_store(struct rp_log_writer *w, int zstd_level, bool refs);
/* Called once, at the first write that fails (ENOSPC, EIO, EFBIG: RLIMIT_FSIZE is
 * checked before writing, so no SIGXFSZ), in whatever context the write was (a signal
 * handler too), with its errno. The file keeps the records written before; every
 * later call fails with that errno. */
void rp_log_set_error_hook(struct rp_log_writer *w, void (*fn)(int err));
int rp_log_error_number(const struct rp_log_writer *w); /* 0: no write failed */
/* For a crash handler (SIGSEGV, SIGABRT, ...): write every complete record still in
 * memory; async-signal-safe (pwrite(2) only), keeps errno, also when it interrupted a
 * writer call (a record being coded is left out). */
void rp_log_flush_from_signal(struct rp_log_writer *w);
/* A handler that must make writer calls (an END) and finds a call under way (busy)
 * defers: when the interrupted call returns, sig is raised again (tgkill) and the
 * handler runs once more, with the writer free. */
bool rp_log_busy(const struct rp_log_writer *w);
void rp_log_defer_signal(struct rp_log_writer *w, int sig);
/* Write, close the file and free the writer. -1 if any write failed. */
int rp_log_close(struct rp_log_writer *w);
/* A fork child's copy of its parent's writer: the descriptor closed, nothing written
 * (the file and its lock stay the parent's: the lock goes when the last descriptor of
 * the open file does, so a child that outlives its parent must not keep one). */
void rp_log_abandon(struct rp_log_writer *w);
void rp_log_writer_stats(const struct rp_log_writer *w, struct rp_log_stats *st);

/* The running executable's NT_GNU_BUILD_ID (buf holds RP_LOG_BUILD_ID_MAX bytes).
 * 0 and *len set, or -1 (ENOENT) and *len = 0 when it has none. */
int rp_log_self_build_id(uint8_t *buf, size_t *len);
/* The NT_GNU_BUILD_ID of a loaded object (dl_iterate_phdr's), read from its PT_NOTE
 * segments in memory, into buf (RP_LOG_BUILD_ID_MAX bytes): its length, 0 if none. */
struct dl_phdr_info;
size_t rp_log_object_build_id(const struct dl_phdr_info *info, uint8_t *buf);
/* A hash (RP_LOG_CODE_HASH_LEN bytes into buf) of what the ELF file at path loads: the
 * file bytes of its PT_LOAD segments, code and data. 0, or -1 with errno set. */
int rp_log_code_hash(const char *path, uint8_t *buf);
/* What ties a log to the running executable, into h: its build-id, or when it has
 * none the code hash of /proc/self/exe and RP_LOG_F_CODE_HASH in h->flags. */
void rp_log_self_identity(struct rp_log_header *h);

/* ---- reader ------------------------------------------------------------------- */

struct rp_log_reader;

enum rp_log_status {
	RP_LOG_OK = 0,     /* *rec holds the next record */
	RP_LOG_DONE,       /* the END record was returned before: the log is complete */
	RP_LOG_TRUNCATED,  /* the log stops early (the recording was cut short); every
			    * record before was good: replay up to here, then say so */
	RP_LOG_CORRUPT,    /* a damaged block or record: stop; the message names it */
	RP_LOG_IO_ERROR,   /* read(2) failed */
};

/* A reader's descriptor is the runtime's own (base/rp_fd.h): a program gets the same
 * descriptor numbers in a replay as when recorded. */
/* Open path (a regular file) and check its header. 0, or -1 with a message in err (not a log,
 * unsupported version, truncated or corrupt header, cannot open). */
int rp_log_open(const char *path, struct rp_log_reader **out, char *err, size_t errlen);
const struct rp_log_header *rp_log_header(const struct rp_log_reader *r);
/* The next record. Once the status is not RP_LOG_OK it stays the same, and
 * rp_log_error says why in one line. */
enum rp_log_status rp_log_next(struct rp_log_reader *r, struct rp_log_record *rec);
const char *rp_log_error(const struct rp_log_reader *r);
/* Records returned so far. */
uint64_t rp_log_records(const struct rp_log_reader *r);
/* Compare the log's build-id (or code hash) with the running executable's: 0 if they
 * match, -1 and a message if they differ (one has a build-id, the other not, too), 1
 * and a message if neither can be known (cannot check). */
int rp_log_check_build_id(const struct rp_log_reader *r, char *err, size_t errlen);
void rp_log_close_reader(struct rp_log_reader *r);

/* The chain of blocks after the reader's position, from their headers alone (payloads
 * are neither read nor checked): how many records the log holds, and where its last
 * block is. A quick walk (one pread of 24 bytes a block); rp_log_next still checks
 * every block it reads. */
struct rp_log_scan {
	uint64_t blocks, records; /* whole blocks whose headers hold, and their records */
	uint64_t last_off;        /* file offset of the last of them (0: none) */
	uint32_t last_seq;        /* its sequence number */
	uint64_t last_first;      /* records before it */
	int clean;                /* the walk ended exactly at the end of the file */
};
int rp_log_scan(const struct rp_log_reader *r, struct rp_log_scan *out);
/* Read on from block seq at file offset off (rp_log_scan's last block, say), with
 * records_before records before it: status RP_LOG_OK again. */
void rp_log_seek(struct rp_log_reader *r, uint64_t off, uint32_t seq, uint64_t records_before);

/* CRC-32 (IEEE 802.3, as zlib's crc32): crc = rp_log_crc32(0, p, n) for one buffer,
 * or continue from a previous result. */
uint32_t rp_log_crc32(uint32_t crc, const void *p, size_t n);

#endif
