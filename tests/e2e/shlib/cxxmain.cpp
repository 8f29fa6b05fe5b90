// The program of cxxlib.cpp: exceptions across the library's boundary both ways.
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

int cxxlib_parse(const std::string &s);
int cxxlib_guarded(const std::function<int(int)> &f, int x);

int main()
{
	const char *in[] = {"12", "x", "7z", "40", "", "-3"};
	long sum = 0;
	int bad = 0;
	for (int round = 0; round < 200; round++)
		for (const char *s : in) {
			try {
				sum += cxxlib_parse(s);
			} catch (const std::exception &) {
				bad++;
			}
			sum += cxxlib_guarded([](int v) -> int {
				if (v % 3 == 0)
					throw std::out_of_range("multiple of three");
				return v;
			}, round);
		}
	printf("sum=%ld bad=%d\n", sum, bad);
	return 0;
}
