// C++ exceptions (issue 11, item 8): thrown and caught in four std::threads, through
// frames with destructors (cleanup landing pads and _Unwind_Resume), rethrown, nested,
// and thrown from a comparator through qsort (uninstrumented code: the unwinder goes
// through the foreign-entry slow path). The count must keep growing across every
// catch: the unwinder lands with the token in r15, not the count.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include "count_check.h"

static std::mutex mu;
static long destroyed;

struct Guard {
	~Guard()
	{
		std::lock_guard<std::mutex> g(mu);
		destroyed++;
	}
};

__attribute__((noinline)) static void deep(int d)
{
	Guard g;
	std::string s = "level" + std::to_string(d);
	if (d == 0)
		throw std::runtime_error(s);
	deep(d - 1);
}

__attribute__((noinline)) static int rethrow_twice(int i)
{
	try {
		try {
			deep(i % 4);
		} catch (const std::runtime_error &) {
			throw; // rethrown to the outer handler
		}
	} catch (const std::exception &e) {
		return e.what()[5] - '0';
	}
	return -1;
}

static int ncmp;
static int cmp_throws(const void *a, const void *b)
{
	if (++ncmp % 97 == 0)
		throw std::out_of_range("comparator");
	return *(const int *)a - *(const int *)b;
}

static void work(int id, long *out)
{
	long sum = 0;
	for (int i = 0; i < 300; i++) {
		try {
			if ((i + id) % 3)
				deep(i % 5);
			sum += 1;
		} catch (const std::runtime_error &e) {
			sum += e.what()[5];
		}
		sum += rethrow_twice(i + id);
	}
	*out = sum;
}

int main()
{
	COUNT_CHECK(0);
	std::vector<std::thread> ts;
	long out[4];
	for (int i = 0; i < 4; i++)
		ts.emplace_back(work, i, &out[i]);
	for (auto &t : ts)
		t.join();
	COUNT_CHECK(1);
	int caught = 0, v[200];
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 200; i++)
			v[i] = (i * 37 + round) % 211;
		try {
			qsort(v, 200, sizeof v[0], cmp_throws);
		} catch (const std::out_of_range &) {
			caught++;
			COUNT_CHECK(1);
		}
	}
	COUNT_CHECK(1);
	printf("%ld %ld %ld %ld destroyed=%ld qsort_caught=%d\n", out[0], out[1], out[2], out[3],
	       destroyed, caught);
	return 0;
}
