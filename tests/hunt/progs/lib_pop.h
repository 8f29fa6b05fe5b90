/* lib_pop.h: the job list of lib_pop.c, in the shared library lib_pop_list.c. */
#ifndef LIB_POP_H
#define LIB_POP_H

struct job {
	struct job *next;
	int id, done;
};

void list_push(struct job *j);
struct job *list_pop(void);
void list_done(struct job *j);

#endif
