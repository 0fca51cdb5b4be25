/* sandbox.c - limits, Landlock and a seccomp allowlist for the guarded
 * child (sandbox.h): Landlock through raw system calls and the kernel's
 * own headers (linux-libc-dev); the filter as libseccomp compiled it at
 * build time (sandbox_allowlist.c), loaded with one system call. */
#define _GNU_SOURCE
#include "private/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0 /* no valgrind headers: not built for it */
#endif

#include "seccomp_allowlist.h" /* generated at build time by sandbox_allowlist.c */

/* Landlock rights and fields newer than some distributions' headers (the
 * kernel's ABI numbers; the header may lack them, the kernel may too:
 * asked with LANDLOCK_CREATE_RULESET_VERSION first). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes its size. */
typedef struct ruleset_attr {
    uint64_t handled_access_fs, handled_access_net, scoped;
} ruleset_attr;

void sandbox_folder_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash == out) slash[1] = '\0'; /* "/model.fbx": the root */
    else if (slash) *slash = '\0';
    else snprintf(out, size, ".");
}

void sandbox_reach_of(const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    if (realpath(path, real)) sandbox_folder_of(real, out, size);
    else sandbox_folder_of(path, out, size); /* it cannot be read anyway: the import says why */
}

static void add_warning(char *warning, size_t size, const char *text)
{
    size_t used = strlen(warning);
    snprintf(warning + used, size - used, "%s%s", used ? "; " : "", text);
}

/* 0, 1 (the kernel has no Landlock: skipped), or -1 with errno. */
static int enter_landlock(const char *const *folders, int count)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0) return errno == ENOSYS || errno == EOPNOTSUPP ? 1 : -1;
    ruleset_attr attr = {0};
    attr.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                             LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                             LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                             LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                             LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                             LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2) attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    size_t attr_size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        attr_size = offsetof(ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) return -1;
    for (int i = 0; i < count; i++) {
        int folder = open(folders[i], O_PATH | O_CLOEXEC);
        struct stat st;
        if (folder >= 0 && fstat(folder, &st) != 0) {
            close(folder);
            folder = -1;
        }
        if (folder < 0) continue; /* then nothing beneath it is read: the import says why */
        /* A file alone: reading it (the kernel refuses folder rights on a file). */
        struct landlock_path_beneath_attr beneath = {
            .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | (S_ISDIR(st.st_mode) ? LANDLOCK_ACCESS_FS_READ_DIR : 0),
            .parent_fd = folder};
        long added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
        int saved = errno;
        close(folder);
        if (added != 0) {
            close(ruleset);
            errno = saved;
            return -1;
        }
    }
    long restricted = syscall(SYS_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    errno = saved;
    return restricted == 0 ? 0 : -1;
}

/* --- seccomp ---------------------------------------------------------------- */

#ifdef ALLOWLIST_PID_STAND_IN
/* 0, 1 (the kernel has no seccomp filters: skipped), or -1 with errno.
 * Allocates nothing: the filter was compiled at build time
 * (sandbox_allowlist.c). */
static int enter_seccomp(void)
{
    const struct sock_filter *compiled = RUNNING_ON_VALGRIND ? allowlist_valgrind : allowlist;
    size_t length = RUNNING_ON_VALGRIND ? sizeof allowlist_valgrind / sizeof *allowlist_valgrind
                                        : sizeof allowlist / sizeof *allowlist;
    _Static_assert(sizeof allowlist / sizeof *allowlist <= BPF_MAXINSNS &&
                       sizeof allowlist_valgrind / sizeof *allowlist_valgrind <= BPF_MAXINSNS,
                   "the kernel's limit on a filter's length");
    /* The stand-in replaced by its pid: only as an operand of the
     * comparisons libseccomp wrote for the rules that name it. */
    struct sock_filter code[BPF_MAXINSNS];
    memcpy(code, compiled, length * sizeof *code);
    uint32_t self = (uint32_t)getpid();
    int replaced = 0;
    for (size_t i = 0; i < length; i++) {
        if (code[i].k != ALLOWLIST_PID_STAND_IN) continue;
        if (BPF_CLASS(code[i].code) != BPF_JMP) {
            errno = EINVAL;
            return -1;
        }
        code[i].k = self;
        replaced++;
    }
    if (!replaced) {
        errno = EINVAL;
        return -1;
    }
    struct sock_fprog program = {.len = (unsigned short)length, .filter = code};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0) return 0;
    /* valgrind 3.19 knows prctl's form only */
    if (errno == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0) return 0;
    return errno == ENOSYS || errno == EINVAL ? 1 : -1;
}
#else
static int enter_seccomp(void)
{
    return 1; /* no allowlist written for this architecture */
}
#endif

/* --- descriptors -------------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void close_from_to(unsigned first, unsigned last)
{
    if (first > last) return;
    if (syscall(SYS_close_range, first, last, 0) == 0) return;
    long open_max = sysconf(_SC_OPEN_MAX);
    unsigned top = open_max > 0 && open_max < 65536 ? (unsigned)open_max : 65536;
    for (unsigned fd = first; fd <= last && fd < top; fd++) close((int)fd);
}

/* stdin and stdout onto /dev/null, every descriptor above 2 but `keep`
 * closed. */
static int close_inherited(const int *keep, int keep_count)
{
    int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC), null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_in < 0 || null_out < 0 || dup2(null_in, STDIN_FILENO) < 0 || dup2(null_out, STDOUT_FILENO) < 0) return -1;
    int sorted[8];
    int n = keep_count < 8 ? keep_count : 8;
    memcpy(sorted, keep, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_ints);
    unsigned from = 3;
    for (int i = 0; i < n; i++) {
        if (sorted[i] < (int)from) continue;
        close_from_to(from, (unsigned)sorted[i] - 1);
        from = (unsigned)sorted[i] + 1;
    }
    close_from_to(from, ~0u);
    return 0;
}

/* How many descriptors the child may hold: its pipes and memfd, and the
 * few files Assimp holds at once for a multi-file format (counted over
 * the corpus by tools/sandbox_syscalls.py), with room to spare. */
enum { SANDBOX_FILES = 32 };

/* No new process, nor thread for a user other than root (the kernel
 * counts a user's threads against RLIMIT_NPROC; root is exempt): the
 * filter refuses processes, this backs it. Few descriptors. Hard limits
 * too, where it may: the filter then keeps them from being raised. */
static int set_limits(void)
{
    struct rlimit none = {0, 0}, files;
    if (setrlimit(RLIMIT_NPROC, &none) != 0 || getrlimit(RLIMIT_NOFILE, &files) != 0) return -1;
    rlim_t want = files.rlim_cur != RLIM_INFINITY && files.rlim_cur < SANDBOX_FILES ? files.rlim_cur : SANDBOX_FILES;
    struct rlimit limit = {want, want};
    if (setrlimit(RLIMIT_NOFILE, &limit) == 0) return 0;
    limit.rlim_max = files.rlim_max; /* valgrind keeps the hard limit for its own descriptors */
    return setrlimit(RLIMIT_NOFILE, &limit);
}

skv_result sandbox_enter(const char *const *folders, int count, const int *keep, int keep_count, char *warning,
                         size_t size, skv_error *err)
{
    warning[0] = '\0';
    if (close_inherited(keep, keep_count) != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: /dev/null: %s", strerror(errno));
    if (set_limits() != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: limits: %s", strerror(errno));
    /* Both Landlock and an unprivileged seccomp filter need it; it also
     * keeps set-user-ID programs from gaining anything (none can run). */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: no_new_privs: %s", strerror(errno));
    int landlock = enter_landlock(folders, count);
    if (landlock < 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: Landlock: %s", strerror(errno));
    if (landlock == 1)
        add_warning(warning, size, "this kernel has no Landlock: the guarded import's file reads are not confined to "
                                   "the model's folder");
    int seccomp = enter_seccomp();
    if (seccomp < 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: seccomp: %s", strerror(errno));
    if (seccomp == 1)
        add_warning(warning, size, "no seccomp filter on this kernel or CPU: the guarded import may exec, connect "
                                   "and trace");
    return SKV_OK;
}
