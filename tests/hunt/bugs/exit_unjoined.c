/* Threads that outlive main: main starts an auditor and two tellers and returns
 * without joining them. An OS may run them between main's return and the process's
 * end; the auditor, if it comes after both tellers, checks the balance with a
 * formula whose sign is wrong (the bug), which no run can show unless the others run
 * after main has returned (unjoined.h). -DFIXED: the right sign. */
#include "unjoined.h"

int main(void)
{
	balance = 100;
	start_day();
	return 0; /* no join: the process ends with them, or after them */
}
