// registry.cpp: SCTBench's State harness shape (chess StateWorkStealQueue), in C++ at
// -O0 as SCTBench builds it. Each thread keeps a stack of records in a shared table of
// per-thread stacks, which it grows to its own id unlocked:
//
//	if (stacks.size() <= id)
//		stacks.resize(id + 1);
//
// and std::vector's resize to fewer entries destroys the last ones. Thread 1 is
// stopped between its check (the table holds main's stack alone) and its resize;
// thread 2 grows the table to 3 and pushes onto its own stack; thread 1 then resizes
// to 2, and thread 2's stack is gone while it still uses it (std::out_of_range, an
// abort). Two switches, the second while thread 2 is still at work: with the thread
// demoted in its window made to wait until the others had run 2^12 counts, thread 2
// ran whole first. The check and the resize are a few counting points apart in the
// thread's first counts, where a slice's end that looked on for a place carried the
// decision past them (docs/replay.md, "A portfolio").
// -DFIXED: the table is grown under a lock.
#include <pthread.h>
#include <cstdio>
#include <vector>

static std::vector<std::vector<int>> stacks;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static void push(int id, int v)
{
#ifdef FIXED
	pthread_mutex_lock(&grow_lock);
#endif
	if (stacks.size() <= (size_t)id)
		stacks.resize(id + 1);
#ifdef FIXED
	pthread_mutex_unlock(&grow_lock);
#endif
	stacks.at(id).push_back(v);
}

static int top(int id)
{
	return stacks.at(id).back();
}

static void pop(int id)
{
	stacks.at(id).pop_back();
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, sum = 0;
	push(id, id);
	for (int i = 0; i < 4; i++) {
		push(id, i);
		sum += top(id);
		pop(id);
	}
	pop(id);
	return (void *)(long)sum;
}

int main()
{
	stacks.reserve(16); // no reallocation: the race is the size alone
	push(0, 0);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], nullptr, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], nullptr);
	std::printf("every thread kept its stack\n");
	return 0;
}
