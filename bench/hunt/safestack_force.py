# bench/hunt/safestack_force.py: gdb drives SCTBench's safestack bug1, built natively
# as its build.sh does, through the least failing schedule safestack_model.c finds
# (seven preemptions), to show the model's schedule fails the real program:
#
#   g++ -std=c++0x -g -O0 -o ss $SCTBENCH/benchmarks/safestack/SafeStack.cpp -pthread
#   gdb -q -batch -x bench/hunt/safestack_force.py ./ss
#
# prints "Assertion `stack.array[elem].Value == idx' failed" in thread T1. Every thread
# runs alone (scheduler-locking) up to the line before which the schedule switches away
# from it; gdb's threads 2, 3, 4 are the program's T0, T1, T2 (idx 0, 1, 2).
import gdb


def ex(cmd):
    return gdb.execute(cmd, to_string=True)


def thread(num):
    for t in gdb.selected_inferior().threads():
        if t.num == num:
            return t
    return None


def where(t):
    t.switch()
    f = gdb.selected_frame()
    return f.name(), f.find_sal().line


ex("set pagination off")
ex("set confirm off")
ex("break thread")
ex("run")
ex("set scheduler-locking on")
# main creates the three threads (line 113: the joins), each held at its start
ex("tbreak SafeStack.cpp:113")
for _ in range(10):
    if where(thread(1)) == ("main", 113):
        break
    thread(1).switch()
    ex("continue")
for num in (2, 3, 4):
    if where(thread(num))[0] != "thread":
        thread(num).switch()
        ex("continue")
ex("delete")
# (thread, the line it stops before): 44 the exchange of head's Next, 75 the push's
# compare-exchange, 46 after the exchange, 43 the load of head, 102 the push, 100 the
# assert, 104 the thread's return
plan = [(2, 44), (2, 44), (3, 75), (4, 75), (2, 46), (3, 43), (2, 102), (3, 100),
        (2, 104), (4, 104)]
for num, line in plan:
    thread(num).switch()
    ex("tbreak SafeStack.cpp:%d thread %d" % (line, num))
    ex("continue")
    print("T%d stopped before line %d" % (num - 2, where(thread(num))[1]))
thread(3).switch()
gdb.execute("continue")
