/* test_sandbox.c - the guarded child's sandbox (src/import/sandbox.c)
 * denies what it must and allows what the import needs. Each attempt runs
 * in a process of its own, twice: once unconfined (it must work, so the
 * test can tell a denial from a broken attempt) and once after
 * sandbox_enter, where it must work, fail (with the errno the filter
 * gives, where it names one), or kill the process (a call of another
 * ABI). See the table below for what is tried. The folder is what
 * guard.c gives a model there (sandbox_reach_of): the model's own, not
 * its parent, and through a link the real file's.
 *
 * With no Landlock on the kernel, the file checks the seccomp filter
 * alone cannot make (reading outside the folder) are reported as skipped
 * and the test fails unless SKV_SANDBOX_ALLOW_NO_LANDLOCK=1; here the
 * kernel has it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h> /* struct clone_args */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"

typedef enum expect {
    WORKS,         /* after sandbox_enter too */
    WORKS_IF_ROOT, /* a thread: RLIMIT_NPROC 0 refuses it to any other user */
    DENIED,        /* fails after, with `err` (0: any errno) */
    KILLED,        /* the process dies of SIGSYS after; before, it must only live */
} expect;

typedef struct attempt_kind {
    const char *name;
    expect after;
    int err;
} attempt_kind;

enum {
    READ_INSIDE, LIST_INSIDE, THREAD, MEMFD_WRITE, PIPE_WRITE, MAP_RW_THEN_RX, SIGNAL_SELF, LIMITS_READ,
    AFFINITY_READ, READ_GRANTED_FILE,
    READ_OUTSIDE, READ_PARENT, READ_BESIDE_GRANTED_FILE, OPEN_FOR_WRITING, CREATE_FILE, REMOVE_FILE, RENAME_FILE, MAKE_FOLDER,
    OPEN_MANY, NPROC_ABOVE_ZERO, EXEC, FORK, VFORK, CLONE_NAMESPACE, CLONE3, TCP_SOCKET, UNIX_CONNECT, SOCKETPAIR,
    PTRACE_PARENT, SIGNAL_PARENT, TGKILL_PARENT, INHERITED_FD, SETSID, SETPGID, PRLIMIT_OTHER, SETRLIMIT_SELF,
    SETPRIORITY, SCHED_SETAFFINITY_OTHER, SCHED_SETSCHEDULER_OTHER, IOPRIO_SET, PIDFD_OPEN, PIDFD_GETFD,
    PIDFD_SEND_SIGNAL, PROCESS_MADVISE, PROCESS_VM_READV, PROCESS_VM_WRITEV, MMAP_RWX, MPROTECT_RWX,
    PKEY_MPROTECT_RWX, FCNTL_SETOWN, IOCTL_FIONBIO, X32_CALL, ATTEMPT_COUNT
};

static const attempt_kind kinds[ATTEMPT_COUNT] = {
    [READ_INSIDE] = {"read a file inside the folder", WORKS, 0},
    [LIST_INSIDE] = {"list the folder", WORKS, 0},
    [THREAD] = {"start a thread", WORKS_IF_ROOT, 0},
    [MEMFD_WRITE] = {"write, ftruncate, fallocate a kept memfd", WORKS, 0},
    [PIPE_WRITE] = {"write to a kept pipe", WORKS, 0},
    [MAP_RW_THEN_RX] = {"map RW, then mprotect RX", WORKS, 0},
    [SIGNAL_SELF] = {"kill/tgkill itself (signal 0)", WORKS, 0},
    [LIMITS_READ] = {"read its own limits", WORKS, 0},
    [AFFINITY_READ] = {"read its CPU affinity", WORKS, 0},
    [READ_GRANTED_FILE] = {"read a file granted alone", WORKS, 0},
    [READ_OUTSIDE] = {"read a file outside the folder", DENIED, 0},
    [READ_PARENT] = {"read a file in the folder's parent", DENIED, 0},
    [READ_BESIDE_GRANTED_FILE] = {"read beside a file granted alone", DENIED, 0},
    [OPEN_FOR_WRITING] = {"open a file for writing", DENIED, EACCES},
    [CREATE_FILE] = {"create a file", DENIED, EACCES},
    [REMOVE_FILE] = {"remove a file", DENIED, 0},
    [RENAME_FILE] = {"rename a file", DENIED, 0},
    [MAKE_FOLDER] = {"make a folder", DENIED, 0},
    [OPEN_MANY] = {"hold 40 files open", DENIED, EMFILE},
    [NPROC_ABOVE_ZERO] = {"RLIMIT_NPROC above 0", DENIED, 0},
    [EXEC] = {"execve /bin/true", DENIED, EPERM},
    [FORK] = {"fork", DENIED, EPERM},
    [VFORK] = {"vfork", DENIED, EPERM},
    [CLONE_NAMESPACE] = {"clone into a new user namespace", DENIED, EPERM},
    [CLONE3] = {"clone3 (a process)", DENIED, ENOSYS},
    [TCP_SOCKET] = {"open a TCP socket", DENIED, EPERM},
    [UNIX_CONNECT] = {"connect to a Unix socket", DENIED, EPERM},
    [SOCKETPAIR] = {"socketpair", DENIED, EPERM},
    [PTRACE_PARENT] = {"ptrace (PTRACE_TRACEME)", DENIED, EPERM},
    [SIGNAL_PARENT] = {"kill the parent (signal 0)", DENIED, EPERM},
    [TGKILL_PARENT] = {"tgkill the parent (signal 0)", DENIED, EPERM},
    [INHERITED_FD] = {"write to an inherited descriptor", DENIED, EBADF},
    [SETSID] = {"setsid", DENIED, EPERM},
    [SETPGID] = {"setpgid", DENIED, EPERM},
    [PRLIMIT_OTHER] = {"prlimit64 on the parent (read)", DENIED, 0},
    [SETRLIMIT_SELF] = {"set its own limit (as it was)", DENIED, EPERM},
    [SETPRIORITY] = {"setpriority of the parent (as it was)", DENIED, EPERM},
    [SCHED_SETAFFINITY_OTHER] = {"sched_setaffinity of the parent", DENIED, EPERM},
    [SCHED_SETSCHEDULER_OTHER] = {"sched_setscheduler of the parent", DENIED, EPERM},
    [IOPRIO_SET] = {"ioprio_set of the parent (as it was)", DENIED, EPERM},
    [PIDFD_OPEN] = {"pidfd_open the parent", DENIED, EPERM},
    [PIDFD_GETFD] = {"pidfd_getfd from the parent", DENIED, EPERM},
    [PIDFD_SEND_SIGNAL] = {"pidfd_send_signal to the parent", DENIED, EPERM},
    [PROCESS_MADVISE] = {"process_madvise", DENIED, EPERM},
    [PROCESS_VM_READV] = {"process_vm_readv from the parent", DENIED, EPERM},
    [PROCESS_VM_WRITEV] = {"process_vm_writev into the parent", DENIED, EPERM},
    [MMAP_RWX] = {"mmap RWX", DENIED, EPERM},
    [MPROTECT_RWX] = {"mprotect RWX", DENIED, EPERM},
    [PKEY_MPROTECT_RWX] = {"pkey_mprotect RWX", DENIED, EPERM},
    [FCNTL_SETOWN] = {"fcntl F_SETOWN to the parent", DENIED, ENOSYS},
    [IOCTL_FIONBIO] = {"ioctl FIONBIO on a pipe", DENIED, ENOSYS},
#ifdef __x86_64__
    [X32_CALL] = {"an x32 system call", KILLED, 0},
#else
    [X32_CALL] = {"(x32: x86_64 only)", WORKS, 0},
#endif
};

static char base[64], inside[4096], outside[4096], granted[4096], unix_path[108];
static volatile char scratch = 's'; /* process_vm_* aims at the parent's copy */

/* What an attempt needs that only an unconfined process can make: made
 * first in both rounds, kept through sandbox_enter. */
typedef struct prep {
    int report, memfd, parent_pidfd, self_pidfd, inherited;
    int priority, ioprio;
    cpu_set_t affinity;
} prep;

static void *thread_body(void *arg)
{
    return arg;
}

/* 1 when the attempt worked, else -errno. */
#define RESULT(ok) ((ok) ? 1 : -(errno ? errno : EINVAL))

static int attempt(int which, const prep *p)
{
    char path[4300];
    errno = 0;
    pid_t parent = getppid();
    switch (which) {
    case READ_INSIDE:
    case READ_OUTSIDE:
    case READ_PARENT:
    case READ_GRANTED_FILE:
    case READ_BESIDE_GRANTED_FILE: {
        const char *where = which == READ_INSIDE    ? inside
                            : which == READ_OUTSIDE ? outside
                            : which == READ_PARENT  ? base
                                                    : granted;
        const char *name = which == READ_GRANTED_FILE ? "granted.txt" : which == READ_BESIDE_GRANTED_FILE
                                                                             ? "beside.txt"
                                                                             : "existing.txt";
        snprintf(path, sizeof path, "%s/%s", where, name);
        int fd = open(path, O_RDONLY);
        char c;
        int ok = fd >= 0 && read(fd, &c, 1) == 1;
        if (fd >= 0) close(fd);
        return RESULT(ok);
    }
    case LIST_INSIDE: {
        DIR *d = opendir(inside);
        int found = 0;
        for (struct dirent *e; d && (e = readdir(d));) found |= strcmp(e->d_name, "existing.txt") == 0;
        if (d) closedir(d);
        return RESULT(found);
    }
    case THREAD: {
        pthread_t thread;
        void *back = NULL;
        int r = pthread_create(&thread, NULL, thread_body, &back);
        if (r != 0) return -r;
        return RESULT(pthread_join(thread, &back) == 0 && back == &back);
    }
    case MEMFD_WRITE:
        return RESULT(write(p->memfd, "x", 1) == 1 && ftruncate(p->memfd, 4096) == 0 &&
                      fallocate(p->memfd, 0, 0, 8192) == 0);
    case PIPE_WRITE:
        return RESULT(write(p->report, "", 0) == 0);
    case MAP_RW_THEN_RX: {
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        int ok = page != MAP_FAILED && mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0;
        if (page != MAP_FAILED) munmap(page, 4096);
        return RESULT(ok);
    }
    case SIGNAL_SELF:
        return RESULT(kill(getpid(), 0) == 0 && syscall(SYS_tgkill, getpid(), gettid(), 0) == 0);
    case LIMITS_READ: {
        struct rlimit limit;
        return RESULT(getrlimit(RLIMIT_NOFILE, &limit) == 0 && prlimit(getpid(), RLIMIT_AS, NULL, &limit) == 0);
    }
    case AFFINITY_READ: {
        cpu_set_t set;
        return RESULT(sched_getaffinity(0, sizeof set, &set) == 0 && sched_getaffinity(getpid(), sizeof set, &set) == 0);
    }
    case OPEN_FOR_WRITING: {
        snprintf(path, sizeof path, "%s/existing.txt", inside);
        int fd = open(path, O_WRONLY | O_APPEND);
        int ok = fd >= 0 && write(fd, "", 0) == 0;
        if (fd >= 0) close(fd);
        return RESULT(ok);
    }
    case CREATE_FILE: {
        snprintf(path, sizeof path, "%s/new%d.txt", inside, (int)getpid());
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) close(fd), unlink(path);
        return RESULT(fd >= 0);
    }
    case REMOVE_FILE: {
        snprintf(path, sizeof path, "%s/remove.txt", inside);
        int ok = unlink(path) == 0;
        if (ok) close(open(path, O_WRONLY | O_CREAT, 0600)); /* for the next round */
        return RESULT(ok);
    }
    case RENAME_FILE: {
        char to[4400];
        snprintf(path, sizeof path, "%s/rename.txt", inside);
        snprintf(to, sizeof to, "%s/renamed.txt", inside);
        int ok = rename(path, to) == 0;
        if (ok) rename(to, path);
        return RESULT(ok);
    }
    case MAKE_FOLDER: {
        snprintf(path, sizeof path, "%s/folder%d", inside, (int)getpid());
        int ok = mkdir(path, 0700) == 0;
        if (ok) rmdir(path);
        return RESULT(ok);
    }
    case OPEN_MANY: {
        snprintf(path, sizeof path, "%s/existing.txt", inside);
        int fds[40], n = 0;
        while (n < 40 && (fds[n] = open(path, O_RDONLY)) >= 0) n++;
        int saved = errno;
        for (int i = 0; i < n; i++) close(fds[i]);
        errno = saved;
        return RESULT(n == 40);
    }
    case NPROC_ABOVE_ZERO: {
        struct rlimit limit;
        return RESULT(getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur > 0);
    }
    case EXEC: {
        /* Replaced by /bin/true, the process exits 0 without a report:
         * run_attempt counts that as worked. */
        char *argv[] = {"true", NULL}, *envp[] = {NULL};
        execve("/bin/true", argv, envp);
        return RESULT(0);
    }
    case FORK:
    case VFORK:
    case CLONE_NAMESPACE:
    case CLONE3: {
        pid_t child;
        if (which == FORK) child = fork();
        else if (which == VFORK) child = vfork();
        else if (which == CLONE_NAMESPACE) child = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
        else {
            struct clone_args args = {.exit_signal = SIGCHLD};
            child = (pid_t)syscall(SYS_clone3, &args, sizeof args);
        }
        if (child == 0) _exit(0);
        if (child < 0) return RESULT(0);
        int status = 0;
        return RESULT(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    case TCP_SOCKET: {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0) close(fd);
        return RESULT(fd >= 0);
    }
    case UNIX_CONNECT: {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0) return RESULT(0);
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", unix_path);
        int ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
        close(fd);
        return RESULT(ok);
    }
    case SOCKETPAIR: {
        int pair[2];
        int ok = socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0;
        if (ok) close(pair[0]), close(pair[1]);
        return RESULT(ok);
    }
    case PTRACE_PARENT:
        /* Asks to be traced by the parent: allowed for a child by default
         * (no Yama), and the same call the sandbox must refuse. */
        return RESULT(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0);
    case SIGNAL_PARENT:
        return RESULT(kill(parent, 0) == 0);
    case TGKILL_PARENT:
        return RESULT(syscall(SYS_tgkill, parent, parent, 0) == 0);
    case INHERITED_FD:
        return RESULT(write(p->inherited, "x", 1) == 1);
    case SETSID:
        return RESULT(setsid() >= 0);
    case SETPGID:
        return RESULT(setpgid(0, 0) == 0);
    case PRLIMIT_OTHER: {
        struct rlimit limit;
        return RESULT(prlimit(parent, RLIMIT_NOFILE, NULL, &limit) == 0);
    }
    case SETRLIMIT_SELF: {
        struct rlimit limit;
        if (getrlimit(RLIMIT_CORE, &limit) != 0) return RESULT(0);
        return RESULT(setrlimit(RLIMIT_CORE, &limit) == 0);
    }
    case SETPRIORITY:
        return RESULT(setpriority(PRIO_PROCESS, (id_t)parent, p->priority) == 0);
    case SCHED_SETAFFINITY_OTHER:
        return RESULT(sched_setaffinity(parent, sizeof p->affinity, &p->affinity) == 0);
    case SCHED_SETSCHEDULER_OTHER: {
        struct sched_param param = {0};
        return RESULT(sched_setscheduler(parent, SCHED_OTHER, &param) == 0);
    }
    case IOPRIO_SET:
        return RESULT(syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, parent, p->ioprio) == 0);
    case PIDFD_OPEN: {
        int fd = (int)syscall(SYS_pidfd_open, parent, 0);
        if (fd >= 0) close(fd);
        return RESULT(fd >= 0);
    }
    case PIDFD_GETFD: {
        int fd = (int)syscall(SYS_pidfd_getfd, p->parent_pidfd, 0, 0);
        if (fd >= 0) close(fd);
        return RESULT(fd >= 0);
    }
    case PIDFD_SEND_SIGNAL:
        return RESULT(syscall(SYS_pidfd_send_signal, p->parent_pidfd, 0, NULL, 0) == 0);
    case PROCESS_MADVISE: {
        static char page[4096] __attribute__((aligned(4096)));
        page[0] = 1;
        struct iovec range = {page, sizeof page};
        return RESULT(syscall(SYS_process_madvise, p->self_pidfd, &range, 1, MADV_COLD, 0) >= 0);
    }
    case PROCESS_VM_READV:
    case PROCESS_VM_WRITEV: {
        char byte = scratch;
        struct iovec local = {&byte, 1}, remote = {(void *)&scratch, 1};
        ssize_t n = which == PROCESS_VM_READV ? process_vm_readv(parent, &local, 1, &remote, 1, 0)
                                              : process_vm_writev(parent, &local, 1, &remote, 1, 0);
        return RESULT(n == 1);
    }
    case MMAP_RWX: {
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page != MAP_FAILED) munmap(page, 4096);
        return RESULT(page != MAP_FAILED);
    }
    case MPROTECT_RWX:
    case PKEY_MPROTECT_RWX: {
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) return RESULT(0);
        int rwx = PROT_READ | PROT_WRITE | PROT_EXEC;
        int ok = which == MPROTECT_RWX ? mprotect(page, 4096, rwx) == 0
                                       : syscall(SYS_pkey_mprotect, page, 4096, rwx, -1) == 0;
        int saved = errno;
        munmap(page, 4096);
        errno = saved;
        return RESULT(ok);
    }
    case FCNTL_SETOWN:
        return RESULT(fcntl(p->report, F_SETOWN, parent) == 0);
    case IOCTL_FIONBIO: {
        int off = 0;
        return RESULT(ioctl(p->report, FIONBIO, &off) == 0);
    }
    case X32_CALL:
#ifdef __x86_64__
        syscall(0x40000000 | SYS_getpid); /* works or ENOSYS (a kernel without x32): either way it lives */
#endif
        return 1;
    }
    return RESULT(0);
}

/* The attempt's result in a process of its own, unconfined or sandboxed:
 * 1, -errno, or -1000 - the signal that killed it. */
static int run_attempt(int which, int sandboxed, int *landlock_missing)
{
    int report[2], inherited[2];
    if (pipe(report) != 0 || pipe(inherited) != 0) return -EIO;
    pid_t child = fork();
    if (child == 0) {
        close(report[0]);
        close(inherited[0]);
        prep p = {.report = report[1], .inherited = inherited[1]};
        p.memfd = memfd_create("test_sandbox", MFD_CLOEXEC);
        p.parent_pidfd = (int)syscall(SYS_pidfd_open, getppid(), 0);
        p.self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
        errno = 0;
        p.priority = getpriority(PRIO_PROCESS, (id_t)getppid());
        p.ioprio = (int)syscall(SYS_ioprio_get, 1, getppid());
        sched_getaffinity(0, sizeof p.affinity, &p.affinity);
        int missing = 0;
        if (sandboxed) {
            /* What guard.c gives a model in `inside`: its reach. */
            char model[4200], reach[4200], file[4200];
            snprintf(model, sizeof model, "%s/model.gltf", inside);
            sandbox_reach_of(model, reach, sizeof reach);
            snprintf(file, sizeof file, "%s/granted.txt", granted);
            const char *folders[2] = {reach, file};
            const int keep[4] = {p.report, p.memfd, p.parent_pidfd, p.self_pidfd};
            char warning[300] = "";
            skv_error err = {{0}};
            if (sandbox_enter(folders, 2, keep, 4, warning, sizeof warning, &err) != SKV_OK) {
                fprintf(stderr, "sandbox_enter: %s\n", err.message);
                _exit(2);
            }
            missing = strstr(warning, "Landlock") != NULL;
        }
        int result = attempt(which, &p);
        if (write(p.report, &result, sizeof result) != sizeof result || write(p.report, &missing, sizeof missing) < 0)
            _exit(3);
        _exit(0);
    }
    close(report[1]);
    close(inherited[1]);
    int result = 0, missing = 0;
    ssize_t got = read(report[0], &result, sizeof result);
    if (read(report[0], &missing, sizeof missing) != sizeof missing) missing = 0;
    close(report[0]);
    close(inherited[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (landlock_missing && missing) *landlock_missing = 1;
    if (WIFSIGNALED(status)) return -1000 - WTERMSIG(status);
    if (got != sizeof result) /* exec'd /bin/true, which exits 0 without a report */
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : -EIO;
    return result;
}

static void write_file(const char *folder, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("x\n", f);
        fclose(f);
    }
}

static void describe(char *out, size_t size, int result)
{
    if (result == 1) snprintf(out, size, "works");
    else if (result <= -1000) snprintf(out, size, "killed (%s)", strsignal(-result - 1000));
    else snprintf(out, size, "fails (%s)", strerror(-result));
}

int main(void)
{
    snprintf(base, sizeof base, "/tmp/skv_sandbox_XXXXXX");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(inside, sizeof inside, "%s/inside", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    snprintf(granted, sizeof granted, "%s/granted", base);
    snprintf(unix_path, sizeof unix_path, "%s/socket", base);
    mkdir(inside, 0700);
    mkdir(outside, 0700);
    mkdir(granted, 0700);
    write_file(inside, "existing.txt");
    write_file(inside, "remove.txt");
    write_file(inside, "rename.txt");
    write_file(outside, "existing.txt");
    write_file(base, "existing.txt");
    write_file(inside, "model.gltf");
    write_file(granted, "granted.txt");
    write_file(granted, "beside.txt");
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", unix_path);
    CHECK(listener >= 0 && bind(listener, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(listener, 4) == 0);

    /* A model's reach is its own folder, not the parent (which held
     * ../secret beside a download), and a model opened through a link
     * from another folder reaches beside its real file. */
    char real_inside[4096], reach[4200], model[4200], link[4200];
    CHECK(realpath(inside, real_inside) != NULL);
    snprintf(model, sizeof model, "%s/model.gltf", inside);
    sandbox_reach_of(model, reach, sizeof reach);
    CHECK(strcmp(reach, real_inside) == 0);
    snprintf(link, sizeof link, "%s/link.gltf", outside);
    CHECK(symlink(model, link) == 0);
    sandbox_reach_of(link, reach, sizeof reach);
    if (strcmp(reach, real_inside) != 0) fprintf(stderr, "reach of a link to %s: %s\n", model, reach);
    CHECK(strcmp(reach, real_inside) == 0);

    int missing = 0;
    int allow_missing = getenv("SKV_SANDBOX_ALLOW_NO_LANDLOCK") && strcmp(getenv("SKV_SANDBOX_ALLOW_NO_LANDLOCK"), "1") == 0;
    for (int a = 0; a < ATTEMPT_COUNT; a++) {
        const attempt_kind *k = &kinds[a];
        int before = run_attempt(a, 0, NULL);
        int after = run_attempt(a, 1, &missing);
        char said_before[64], said_after[64];
        describe(said_before, sizeof said_before, before);
        describe(said_after, sizeof said_after, after);
        printf("%-42s unconfined: %-24s sandboxed: %s\n", k->name, said_before, said_after);
        int usable = k->after == KILLED ? before > -1000 : before == 1;
        if (!usable) fprintf(stderr, "cannot test '%s': unconfined it %s\n", k->name, said_before);
        CHECK(usable);
        int landlock_only = a == READ_OUTSIDE || a == READ_PARENT || a == READ_BESIDE_GRANTED_FILE;
        int ok;
        switch (k->after) {
        case WORKS: ok = after == 1; break;
        case WORKS_IF_ROOT: ok = getuid() == 0 ? after == 1 : after == -EAGAIN; break;
        case KILLED: ok = after == -1000 - SIGSYS; break;
        default: ok = (after < 0 && after > -1000 && (!k->err || after == -k->err)) || (landlock_only && missing);
        }
        if (!ok) fprintf(stderr, "sandbox: '%s' %s after sandbox_enter\n", k->name, said_after);
        CHECK(ok);
    }
    if (missing) {
        printf("this kernel has no Landlock: reading outside the folder is not denied%s\n",
               allow_missing ? " (allowed by SKV_SANDBOX_ALLOW_NO_LANDLOCK)" : "");
        CHECK(allow_missing);
    }
    close(listener);
    char command[200];
    snprintf(command, sizeof command, "rm -rf '%s'", base);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", base);
    return check_summary();
}
