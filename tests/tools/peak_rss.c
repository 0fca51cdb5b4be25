/* peak_rss.c - runs a command and says how much memory it and every
 * process it started took at their peaks, for the hostile-input figures
 * (tests/e2e/bad_input.sh).
 *
 *   peak_rss OUT COMMAND [ARGS...]
 *
 * Writes one line to OUT: wall seconds, the sum of the peak resident set
 * sizes of the command and of each process it forked (KB), the command's
 * own peak, the largest other one, and how many processes there were.
 * Exits with the command's status (128 + the signal that ended it).
 *
 * Why not time(1)'s %M: the kernel keeps a process's peak and, apart, the
 * largest peak among the children it reaped, and wait4 reports the larger
 * of the two, so a guarded import's child and skinview together read as
 * whichever was bigger. Here each process is traced (fork, vfork, clone
 * and exit events; no syscall stops, so it runs at full speed) and its
 * own peak (VmHWM) is read as it exits, its memory still there. One
 * killed by SIGKILL may not stop there: its peak is the one wait4 gives
 * this tracer, which waits for it before its parent can (its own, for a
 * process that reaped no children). The sum is an upper bound on what
 * the processes held at any one moment (pages shared between them count
 * once per process). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_TASKS = 65536 };

/* What is known of a traced task: a process (the command or one it forked)
 * or a thread of one; started once its first stop has been let go. */
typedef struct task {
    pid_t pid;
    int process, started;
    long peak_kb; /* VmHWM at its exit, 0 until then */
} task;

static task tasks[MAX_TASKS];
static int task_count;

static task *find_task(pid_t pid, int add)
{
    for (int i = 0; i < task_count; i++)
        if (tasks[i].pid == pid) return &tasks[i];
    if (!add || task_count == MAX_TASKS) return NULL;
    tasks[task_count] = (task){.pid = pid};
    return &tasks[task_count++];
}

static void forget_task(pid_t pid)
{
    task *t = find_task(pid, 0);
    if (t) *t = tasks[--task_count];
}

/* The peak resident set of `pid`'s process, in KB; 0 if unknown. */
static long peak_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peak_rss OUT COMMAND [ARGS...]\n");
        return 2;
    }
    double start = now();
    pid_t top = fork();
    if (top < 0) {
        perror("peak_rss: fork");
        return 2;
    }
    if (top == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(126);
        raise(SIGSTOP); /* the tracer sets its options, then lets it go */
        execvp(argv[2], argv + 2);
        fprintf(stderr, "peak_rss: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    if (waitpid(top, &status, 0) != top || !WIFSTOPPED(status)) {
        fprintf(stderr, "peak_rss: the command did not stop to be traced\n");
        return 2;
    }
    long options = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                   PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SETOPTIONS, top, NULL, (void *)options) != 0) {
        perror("peak_rss: PTRACE_SETOPTIONS");
        kill(top, SIGKILL);
        return 2;
    }
    *find_task(top, 1) = (task){.pid = top, .process = 1, .started = 1};
    ptrace(PTRACE_CONT, top, NULL, NULL);

    long own_kb = 0, sum_kb = 0, largest_other_kb = 0;
    int processes = 1, result = 1;
    for (;;) {
        struct rusage usage;
        pid_t pid = wait4(-1, &status, __WALL, &usage);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break; /* ECHILD: nothing left */
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            task *t = find_task(pid, 0);
            /* A process's own peak (a thread's is its process's so far). */
            if (pid == top || (t && t->process)) {
                long kb = t && t->peak_kb ? t->peak_kb : usage.ru_maxrss;
                sum_kb += kb;
                if (pid == top)
                    own_kb = kb;
                else if (kb > largest_other_kb)
                    largest_other_kb = kb;
            }
            forget_task(pid);
            if (pid == top) {
                result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                break; /* what it left running dies with this tracer (EXITKILL) */
            }
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int event = status >> 16, sig = WSTOPSIG(status);
        task *t = find_task(pid, 1);
        if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
            unsigned long child = 0;
            ptrace(PTRACE_GETEVENTMSG, pid, NULL, &child);
            task *c = find_task((pid_t)child, 1);
            if (c && event != PTRACE_EVENT_CLONE) c->process = 1, processes++;
            ptrace(PTRACE_CONT, pid, NULL, NULL);
        } else if (event == PTRACE_EVENT_EXIT) {
            if (t && t->process) t->peak_kb = peak_of(pid);
            ptrace(PTRACE_CONT, pid, NULL, NULL);
        } else if (event != 0) {
            ptrace(PTRACE_CONT, pid, NULL, NULL); /* exec */
        } else if (t && !t->started && sig == SIGSTOP) {
            t->started = 1; /* a new task's first stop: traced from here on */
            ptrace(PTRACE_CONT, pid, NULL, NULL);
        } else {
            if (t) t->started = 1;
            ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig); /* its signal, delivered */
        }
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 2;
    }
    fprintf(out, "%.2f %ld %ld %ld %d\n", now() - start, sum_kb, own_kb, largest_other_kb, processes);
    fclose(out);
    return result;
}
