// A C++ shared library built with sic++ -shared -fPIC: it throws to the program,
// catches what the program's callback throws, and keeps a thread_local.
#include <functional>
#include <stdexcept>
#include <string>

thread_local int depth;

int cxxlib_parse(const std::string &s)
{
	depth++;
	size_t used = 0;
	int v = std::stoi(s, &used); // throws std::invalid_argument on "x"
	if (used != s.size())
		throw std::runtime_error("trailing junk in " + s);
	return v;
}

int cxxlib_guarded(const std::function<int(int)> &f, int x)
{
	try {
		return f(x);
	} catch (const std::exception &e) {
		return -int(std::string(e.what()).size());
	}
}
