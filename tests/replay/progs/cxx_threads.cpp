// C++ threads recorded and replayed (issue 11, item 8): std::thread (created inside
// libstdc++, which reaches the pthread layer through the symbols sicc exports),
// std::mutex, std::condition_variable (wait in libstdc++, wait_for inline), a
// thread_local per worker, exceptions in every worker, and a racy counter whose lost
// updates differ between recordings and must replay exactly.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

static std::mutex mu;
static std::condition_variable ready, done_cv;
static std::deque<long> queue;
static bool closed;
static long handled, racy;
static volatile long racy_v;
thread_local long mine;

static long consume(long item)
{
	if (item % 7 == 0)
		throw std::invalid_argument("multiple of 7");
	return item * 2;
}

static void worker()
{
	for (;;) {
		long item;
		{
			std::unique_lock<std::mutex> lk(mu);
			while (queue.empty() && !closed)
				ready.wait_for(lk, std::chrono::milliseconds(50));
			if (queue.empty())
				break;
			item = queue.front();
			queue.pop_front();
		}
		try {
			mine += consume(item);
		} catch (const std::invalid_argument &) {
			mine -= 1;
		}
		for (int i = 0; i < 20000; i++)
			racy_v = racy_v + 1; // not atomic: updates get lost
		std::lock_guard<std::mutex> g(mu);
		handled++;
		done_cv.notify_all();
	}
	std::lock_guard<std::mutex> g(mu);
	racy += mine;
}

int main()
{
	std::vector<std::thread> ts;
	for (int i = 0; i < 4; i++)
		ts.emplace_back(worker);
	for (long i = 1; i <= 3000; i++) {
		std::lock_guard<std::mutex> g(mu);
		queue.push_back(i);
		ready.notify_one();
	}
	{
		std::unique_lock<std::mutex> lk(mu);
		done_cv.wait(lk, [] { return handled == 3000; });
		closed = true;
		ready.notify_all();
	}
	for (auto &t : ts)
		t.join();
	printf("handled=%ld sum=%ld racy=%ld\n", handled, racy, racy_v);
	return 0;
}
