// thread_local destructors (issue 11, item 8) run when each thread ends: std::thread
// and pthread_create threads, newest first within a thread, before the thread's
// pthread_key destructors (as glibc orders them); main's run at exit.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

static std::mutex mu;
static std::vector<std::string> events;
static void note(const std::string &s)
{
	std::lock_guard<std::mutex> g(mu);
	events.push_back(s);
}

struct Tracker {
	std::string name;
	std::string id = "?";
	explicit Tracker(const char *n) : name(n) {}
	~Tracker() { note(id + ":" + name); }
};
thread_local Tracker first("first");
thread_local Tracker second("second");

static pthread_key_t key;
static void key_dtor(void *v) { note(std::to_string((long)v) + ":key"); }

static void *posix_thread(void *arg)
{
	std::string id = "p" + std::to_string((long)arg);
	first.id = id;   // built first, destroyed last
	second.id = id;
	pthread_setspecific(key, arg);
	return nullptr;
}

int main()
{
	pthread_key_create(&key, key_dtor);
	first.id = "main";
	std::vector<std::thread> ts;
	for (int i = 0; i < 3; i++)
		ts.emplace_back([i] { second.id = "s" + std::to_string(i); });
	for (auto &t : ts)
		t.join();
	for (long i = 1; i <= 2; i++) {
		pthread_t t;
		pthread_create(&t, nullptr, posix_thread, (void *)i);
		pthread_join(t, nullptr);
	}
	std::sort(events.begin(), events.begin() + 6); // std::threads end in any order
	for (auto &e : events)
		printf("%s\n", e.c_str());
	fflush(stdout);
	// main's thread_local objects are destroyed in exit(), before static ones
	static struct AtExit {
		~AtExit() { printf("at exit: %s %s\n", events.end()[-2].c_str(), events.back().c_str()); }
	} at_exit;
	return 0;
}
