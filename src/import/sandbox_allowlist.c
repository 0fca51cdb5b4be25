/* sandbox_allowlist.c - compiles the guarded child's seccomp allowlist
 * (sandbox.h says what it allows) with libseccomp, at build time: a
 * program the build runs, which writes the filters as C arrays into the
 * header it is given (seccomp_allowlist.h). sandbox.c loads them in the
 * child with one system call: compiled at run time, libseccomp's work
 * took several times what the rest of the sandbox costs, at every
 * import, and its allocations changed the heap the import then
 * allocates from (Assimp's HL1 reader, which frees pointers it never set
 * when an allocation fails, crashed on it at --import-memory 1).
 *
 * Two filters: one for the child as it runs, one for the child under
 * valgrind, whose JIT maps memory writable and executable and polls for
 * signals. The child's pid, unknown here, appears as PID_STAND_IN, which
 * sandbox.c replaces. Usage: sandbox_allowlist OUT.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__aarch64__)
/* The allowlist is written and measured for these two (README, "Broken
 * files"): another architecture's calls differ (mmap2, socketcall, ...). */
#define SANDBOX_SECCOMP 1
#endif

/* The child's pid in the rules that name it (kill, tgkill, prlimit64,
 * sched_getaffinity on itself): no pid is this large (pid_max is at most
 * 2^22). */
#define PID_STAND_IN 0x5ca1ab1eu

#ifdef SANDBOX_SECCOMP
typedef struct filter {
    scmp_filter_ctx ctx;
    int error; /* the first rule libseccomp refused, as errno */
} filter;

static void rule(filter *f, uint32_t action, int nr, unsigned count, const struct scmp_arg_cmp *args)
{
    int r = seccomp_rule_add_array(f->ctx, action, nr, count, args);
    if (r < 0 && !f->error) f->error = -r;
}

#define RULE(f, action, nr, ...)                                                                                  \
    rule((f), (action), (nr), sizeof((struct scmp_arg_cmp[]){__VA_ARGS__}) / sizeof(struct scmp_arg_cmp),          \
         (struct scmp_arg_cmp[]){__VA_ARGS__})

static void allow(filter *f, int nr)
{
    rule(f, SCMP_ACT_ALLOW, nr, 0, NULL);
}

static void deny(filter *f, int nr)
{
    rule(f, SCMP_ACT_ERRNO(EPERM), nr, 0, NULL);
}

/* Call `nr` on this process only: argument `arg` is its pid, or 0 where
 * `zero_is_self`. On another process: EPERM; where 0 is allowed too,
 * the default's ENOSYS (libseccomp compares an argument once a rule). */
static void allow_self(filter *f, int nr, unsigned arg, int zero_is_self, pid_t self)
{
    RULE(f, SCMP_ACT_ALLOW, nr, SCMP_CMP(arg, SCMP_CMP_EQ, (scmp_datum_t)self));
    if (zero_is_self) RULE(f, SCMP_ACT_ALLOW, nr, SCMP_CMP(arg, SCMP_CMP_EQ, 0));
    else RULE(f, SCMP_ACT_ERRNO(EPERM), nr, SCMP_CMP(arg, SCMP_CMP_NE, (scmp_datum_t)self));
}

/* mmap, mprotect, pkey_mprotect: any protection but writable and
 * executable at once (`jit`: that too, for valgrind's translations). */
static void allow_not_rwx(filter *f, int nr, int jit)
{
    if (jit) {
        allow(f, nr);
        return;
    }
    RULE(f, SCMP_ACT_ALLOW, nr, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    RULE(f, SCMP_ACT_ALLOW, nr, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE, 0));
    RULE(f, SCMP_ACT_ERRNO(EPERM), nr, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC));
}

/* open/openat for reading only: any flag that writes, creates or
 * truncates fails with EACCES, as a read-only file system's would. */
static void allow_read_only_open(filter *f, int nr, unsigned flags_arg)
{
    static const scmp_datum_t writes[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_TMPFILE & ~O_DIRECTORY};
    scmp_datum_t all = 0;
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        all |= writes[i];
        RULE(f, SCMP_ACT_ERRNO(EACCES), nr, SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ, writes[i], writes[i]));
    }
    RULE(f, SCMP_ACT_ALLOW, nr, SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ, all, 0));
}

/* Call `nr` when argument `arg` is one of `values` (`count`). */
static void allow_values(filter *f, int nr, unsigned arg, const scmp_datum_t *values, size_t count)
{
    for (size_t i = 0; i < count; i++) RULE(f, SCMP_ACT_ALLOW, nr, SCMP_CMP(arg, SCMP_CMP_EQ, values[i]));
}

/* Builds the allowlist (sandbox.h) into `f`. `valgrind`: the child runs
 * on valgrind's JIT, whose own calls go through the same filter. */
static void build_allowlist(filter *f, pid_t self, int valgrind)
{
    /* Reading files (Landlock says which), and what glibc's stdio,
     * realpath and opendir do around it. */
    static const int plain[] = {
        SCMP_SYS(read), SCMP_SYS(readv), SCMP_SYS(pread64), SCMP_SYS(preadv), SCMP_SYS(lseek), SCMP_SYS(close),
        SCMP_SYS(close_range), SCMP_SYS(dup), SCMP_SYS(dup3), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
        SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(readlinkat), SCMP_SYS(getcwd), SCMP_SYS(getdents64),
        /* writing: only to what it holds open, the pipes and the memfd
         * (sandbox_enter closed the rest); ftruncate and fallocate size
         * the memfd */
        SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(pwrite64), SCMP_SYS(pwritev), SCMP_SYS(ftruncate),
        SCMP_SYS(fallocate),
        /* memory */
        SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
        /* threads (clone below), signals to itself, time, exit */
        SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sched_yield), SCMP_SYS(gettid),
        SCMP_SYS(getpid), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
        SCMP_SYS(sigaltstack), SCMP_SYS(restart_syscall), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
        SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(getrandom), SCMP_SYS(exit),
        SCMP_SYS(exit_group),
#ifdef __NR_open /* the calls aarch64 has only in their *at form */
        SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(access), SCMP_SYS(readlink), SCMP_SYS(dup2), SCMP_SYS(time),
#endif
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) allow(f, plain[i]);
    allow_read_only_open(f, SCMP_SYS(openat), 2);
#ifdef __NR_open
    allow_read_only_open(f, SCMP_SYS(open), 1);
    rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(creat), 0, NULL);
#endif
    /* openat2's flags sit in memory a filter cannot read: it fails as
     * unknown (the default, ENOSYS), and glibc falls back to openat. */

    allow_not_rwx(f, SCMP_SYS(mmap), valgrind);
    allow_not_rwx(f, SCMP_SYS(mprotect), valgrind);
    allow_not_rwx(f, SCMP_SYS(pkey_mprotect), valgrind);
    /* The advice malloc, thread stacks and the sanitizers give; not
     * poisoning, offlining or merging pages. */
    static const scmp_datum_t advice[] = {MADV_NORMAL,   MADV_RANDOM,   MADV_SEQUENTIAL, MADV_WILLNEED,
                                          MADV_DONTNEED, MADV_FREE,     MADV_DONTFORK,   MADV_DOFORK,
                                          MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP};
    allow_values(f, SCMP_SYS(madvise), 2, advice, sizeof advice / sizeof advice[0]);
    /* Not F_SETOWN / F_SETSIG: a pipe's owner gets SIGIO, a signal to
     * another process. */
    static const scmp_datum_t fcntls[] = {F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD, F_DUPFD_CLOEXEC, F_GET_SEALS};
    allow_values(f, SCMP_SYS(fcntl), 1, fcntls, sizeof fcntls / sizeof fcntls[0]);
    /* isatty and FIONREAD; not TIOCSTI (typing into a terminal) or any
     * device's own requests. */
    static const scmp_datum_t ioctls[] = {TCGETS, FIONREAD};
    allow_values(f, SCMP_SYS(ioctl), 1, ioctls, sizeof ioctls / sizeof ioctls[0]);

    /* Threads only: a new process could outlive the child and still
     * write to the block it hands over; no namespace. clone3's flags sit
     * in memory a filter cannot read: it fails as unknown (the default,
     * ENOSYS), and glibc falls back to clone. */
    const scmp_datum_t namespaces = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                                    CLONE_NEWUTS | CLONE_NEWCGROUP;
    RULE(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD | namespaces, CLONE_THREAD));
    RULE(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    for (scmp_datum_t bit = 1; bit && bit <= namespaces; bit <<= 1)
        if (namespaces & bit) RULE(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit));

    /* Signals to itself only (abort() raises SIGABRT with tgkill). */
    allow_self(f, SCMP_SYS(kill), 0, 0, self);
    allow_self(f, SCMP_SYS(tgkill), 0, 0, self);
    allow_self(f, SCMP_SYS(sched_getaffinity), 0, 1, self); /* how many CPUs: sysconf, thread pools */
    /* Its limits read, not changed: sandbox_enter set them for good (a
     * soft limit could be raised to its hard one, and root raises both). */
    RULE(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0));
    RULE(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self), SCMP_A2(SCMP_CMP_EQ, 0));
    RULE(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), SCMP_A2(SCMP_CMP_NE, 0));
    allow(f, SCMP_SYS(getrlimit));
    deny(f, SCMP_SYS(setrlimit));

    /* Not on the list, so refused anyway; named so that they fail with
     * EPERM, "not permitted", and the tests can tell the filter's no:
     * other processes, sessions, scheduling, exec, the network. */
    static const int denied[] = {
        SCMP_SYS(setsid), SCMP_SYS(setpgid), SCMP_SYS(setpriority), SCMP_SYS(sched_setaffinity),
        SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam), SCMP_SYS(sched_setattr), SCMP_SYS(ioprio_set),
        SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal), SCMP_SYS(process_madvise),
        SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(ptrace), SCMP_SYS(kcmp), SCMP_SYS(tkill),
        SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(execve), SCMP_SYS(execveat),
        SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
        SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(unshare), SCMP_SYS(setns),
#ifdef __NR_fork
        SCMP_SYS(fork), SCMP_SYS(vfork),
#endif
    };
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(f, denied[i]);

    if (valgrind) {
        /* valgrind's scheduler polls for signals with rt_sigtimedwait */
        allow(f, SCMP_SYS(rt_sigtimedwait));
    }
}


/* The filter's program, as libseccomp writes it, into `out` as the C
 * array `name`; 0, or an errno value. */
static int write_filter(FILE *out, const char *name, int valgrind)
{
    /* Calls not on the list fail with ENOSYS, the answer of a kernel that
     * lacks them, on which glibc and libraries fall back or do without
     * (clone3 -> clone, openat2 -> openat, an optional probe) where EPERM
     * reads as a real failure; a call of another ABI (x32, i386 on
     * x86_64) kills: its numbers mean other calls. */
    filter f = {seccomp_init(SCMP_ACT_ERRNO(ENOSYS)), 0};
    if (!f.ctx) return ENOMEM;
    seccomp_attr_set(f.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    build_allowlist(&f, (pid_t)PID_STAND_IN, valgrind);
    /* libseccomp 2.5 writes the program to a descriptor only. */
    FILE *program = f.error ? NULL : tmpfile();
    int error = f.error ? f.error : !program ? errno : -seccomp_export_bpf(f.ctx, fileno(program));
    seccomp_release(f.ctx);
    if (error) {
        if (program) fclose(program);
        return error;
    }
    rewind(program);
    fprintf(out, "static const struct sock_filter %s[] = {\n", name);
    unsigned char op[8];
    size_t count = 0;
    while (fread(op, sizeof op, 1, program) == 1) {
        uint16_t code;
        uint32_t k;
        memcpy(&code, op, 2), memcpy(&k, op + 4, 4);
        fprintf(out, "    {0x%04x, %u, %u, 0x%08x},\n", code, op[2], op[3], k);
        count++;
    }
    fclose(program);
    fprintf(out, "};\n");
    return count ? 0 : EINVAL;
}
#endif

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sandbox_allowlist OUT.h\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "/* The guarded child's seccomp filters, written by sandbox_allowlist.c at\n"
                 " * build time: do not edit. */\n");
#ifdef SANDBOX_SECCOMP
    fprintf(out, "#define ALLOWLIST_PID_STAND_IN 0x%xu\n", PID_STAND_IN);
    int error = write_filter(out, "allowlist", 0);
    if (!error) error = write_filter(out, "allowlist_valgrind", 1);
    if (fclose(out) != 0 && !error) error = errno;
    if (error) {
        fprintf(stderr, "sandbox_allowlist: %s\n", strerror(error));
        remove(argv[1]);
        return 1;
    }
#else
    fprintf(out, "/* none for this architecture */\n");
    if (fclose(out) != 0) return 1;
#endif
    return 0;
}
