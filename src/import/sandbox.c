/* sandbox.c - Landlock and a seccomp filter for the guarded child
 * (sandbox.h), through raw system calls and the kernel's own headers
 * (linux-libc-dev): no library. */
#define _GNU_SOURCE
#include "private/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    char folder[4096], real[PATH_MAX];
    sandbox_folder_of(path, folder, sizeof folder);
    if (!realpath(folder, real)) {
        snprintf(out, size, "%s", folder);
        return;
    }
    char *slash = strrchr(real, '/');
    if (slash && slash != real) *slash = '\0'; /* its parent, unless that is the root */
    snprintf(out, size, "%s", real);
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
        int folder = open(folders[i], O_PATH | O_CLOEXEC | O_DIRECTORY);
        if (folder < 0) continue; /* then nothing beneath it is read: the import says why */
        struct landlock_path_beneath_attr beneath = {
            .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, .parent_fd = folder};
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

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SANDBOX_ARCH
typedef struct program {
    struct sock_filter code[256];
    int length;
} program;

static void emit(program *p, struct sock_filter op)
{
    if (p->length < (int)(sizeof p->code / sizeof p->code[0])) p->code[p->length] = op;
    p->length++;
}

#define RET(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define DENY(err) RET(SECCOMP_RET_ERRNO | (err))
/* The low 32 bits of argument i (little-endian; the kernel reads pids,
 * flags and modes as int). */
#define LOAD_ARG(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))

static void deny(program *p, int nr, int err)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    emit(p, (struct sock_filter)DENY(err));
}

/* Call `nr` is allowed unless argument `arg` has any of `bits`. */
static void deny_bits(program *p, int nr, int arg, uint32_t bits, int err)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4));
    emit(p, (struct sock_filter)LOAD_ARG(arg));
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1));
    emit(p, (struct sock_filter)DENY(err));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

/* Call `nr` is allowed only when argument `arg` is `value`. */
static void only_when(program *p, int nr, int arg, uint32_t value, int err)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4));
    emit(p, (struct sock_filter)LOAD_ARG(arg));
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    emit(p, (struct sock_filter)DENY(err));
}

/* 0, 1 (the kernel has no seccomp filters: skipped), or -1 with errno. */
static int enter_seccomp(void)
{
    static const int denied[] = {
        /* running anything else, or reaching into another process */
        SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp,
        SYS_pidfd_getfd, SYS_pidfd_send_signal, SYS_tkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
        /* the network */
        SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4,
        /* the system */
        SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns, SYS_bpf, SYS_perf_event_open,
        SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_init_module, SYS_finit_module,
        SYS_delete_module, SYS_kexec_load, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_io_uring_setup,
        SYS_io_uring_enter, SYS_io_uring_register, SYS_open_by_handle_at, SYS_name_to_handle_at,
        /* files made, removed, renamed, re-permitted (Landlock covers the
         * folders; this covers a kernel without it) */
        SYS_mkdirat, SYS_mknodat, SYS_unlinkat, SYS_renameat2, SYS_linkat, SYS_symlinkat, SYS_fchmodat,
        SYS_fchmod, SYS_fchownat, SYS_fchown, SYS_truncate, SYS_utimensat, SYS_setxattr, SYS_lsetxattr,
        SYS_fsetxattr, SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
#ifdef SYS_open
        SYS_creat, SYS_mkdir, SYS_mknod, SYS_unlink, SYS_rmdir, SYS_rename, SYS_renameat, SYS_link, SYS_symlink,
        SYS_chmod, SYS_chown, SYS_lchown, SYS_utime, SYS_utimes, SYS_futimesat,
#endif
    };
    program p = {.length = 0};
    emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0));
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS)); /* another ABI's numbers mean other calls */
    emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
    /* x32 calls share the architecture tag: refuse them all. */
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    emit(&p, (struct sock_filter)DENY(EPERM));
#endif
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(&p, denied[i], EPERM);
    /* clone3's flags sit in memory a filter cannot read: glibc falls back
     * to clone, whose flags it can. openat2 likewise, to openat. */
    deny(&p, SYS_clone3, ENOSYS);
    deny(&p, SYS_openat2, ENOSYS);
    const uint32_t write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY);
#ifdef SYS_open
    deny_bits(&p, SYS_open, 1, write_flags, EACCES);
#endif
    deny_bits(&p, SYS_openat, 2, write_flags, EACCES);
    /* Threads, but no new process (one could outlive the child and
     * still write to the block it hands over) and no namespace. */
#ifdef SYS_fork
    deny(&p, SYS_fork, EPERM);
    deny(&p, SYS_vfork, EPERM);
#endif
    const uint32_t namespaces = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                                CLONE_NEWUTS | CLONE_NEWCGROUP;
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 5));
    emit(&p, (struct sock_filter)LOAD_ARG(0));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, namespaces, 2, 0));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    emit(&p, (struct sock_filter)DENY(EPERM));
    /* Signals to itself only (abort() raises SIGABRT with tgkill). */
    uint32_t self = (uint32_t)getpid();
    only_when(&p, SYS_kill, 0, self, EPERM);
    only_when(&p, SYS_tgkill, 0, self, EPERM);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    if (p.length > (int)(sizeof p.code / sizeof p.code[0])) {
        errno = E2BIG;
        return -1;
    }
    struct sock_fprog prog = {.len = (unsigned short)p.length, .filter = p.code};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) return 0;
    return errno == ENOSYS || errno == EINVAL ? 1 : -1;
}
#else
static int enter_seccomp(void)
{
    return 1; /* no filter written for this architecture */
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

skv_result sandbox_enter(const char *const *folders, int count, const int *keep, int keep_count, char *warning,
                         size_t size, skv_error *err)
{
    warning[0] = '\0';
    if (close_inherited(keep, keep_count) != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot set up the import's sandbox: /dev/null: %s", strerror(errno));
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
