/* hunt_bug.h: what the buggy programs of tests/hunt share. Each program has one
 * concurrency bug whose window is a few instructions wide; built with -DFIXED it
 * is the same program with the bug fixed (a negative control of the same shape).
 * The bug's output line and exit status are the same in every run that hits it. */
#ifndef HUNT_BUG_H
#define HUNT_BUG_H

/* CPU work the compiler cannot drop: n iterations of a loop. */
static inline unsigned long hunt_work(unsigned n)
{
	volatile unsigned long x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}

#endif
