/* sandbox.h - what the guarded child may still do once it has the file:
 * read beneath the folders it was given, write to what it holds open, and
 * nothing else that reaches outside the process. No Assimp type here; the
 * tests run it on its own (tests/unit/test_sandbox.c tries what it must
 * deny, and what it must still allow).
 *
 * - Every inherited descriptor but stdin/stdout/stderr (put on /dev/null)
 *   and the ones kept is closed first: Landlock does not cover files that
 *   are already open (a window's X11 socket, the user's output file).
 * - Limits: RLIMIT_NPROC 0 (no new process; for a user other than root
 *   no new thread either, as the kernel counts threads: work the child
 *   would spread over threads runs on the calling one), RLIMIT_NOFILE 32
 *   (hard limits too, but under valgrind, which keeps its own).
 * - Landlock (kernel 5.13+): reading files and listing folders only
 *   beneath the given folders (or the given file alone); writing,
 *   creating, removing, renaming, truncating nowhere; from ABI 4 no TCP
 *   bind/connect, from ABI 6 no signals or abstract sockets beyond the
 *   child itself.
 * - seccomp: an allowlist (compiled by libseccomp at build time,
 *   sandbox_allowlist.c) measured over the corpus in the normal, ASan,
 *   TSan and valgrind builds (tools/sandbox_syscalls.py):
 *   reading (open/openat read-only: a flag that writes, creates,
 *   truncates or appends fails with EACCES), stat, getdents, readlink,
 *   getcwd; write/ftruncate/fallocate on what it holds (its pipes and
 *   memfd); memory (mmap/mprotect/pkey_mprotect never writable and
 *   executable at once, but under valgrind, whose JIT is the child's
 *   code; madvise without poisoning or merging pages); threads (clone
 *   with CLONE_THREAD and no namespace, futex, set_robust_list, rseq);
 *   signals to itself only (kill/tgkill); its own limits and CPU
 *   affinity read, not set; fcntl without F_SETOWN/F_SETSIG; ioctl TCGETS
 *   and FIONREAD only; time, getrandom, exit. Named and refused with
 *   EPERM: new processes (fork, vfork, clone without CLONE_THREAD or with
 *   a namespace), exec, ptrace, another process's memory, pidfds,
 *   process_madvise, kcmp, signals to others, setsid, setpgid,
 *   setpriority, scheduler and I/O priority changes, setrlimit and
 *   prlimit64 that sets a limit (reading another process's: ENOSYS),
 *   sockets, unshare, setns.
 *   Anything else fails with ENOSYS, as on a kernel that lacks it
 *   (clone3 and openat2, whose arguments a filter cannot read: glibc
 *   falls back to clone and openat). A call of another ABI (x32) kills.
 *   x86_64 and aarch64 only; elsewhere no filter, with the warning. */
#ifndef SKV_SANDBOX_H
#define SKV_SANDBOX_H

#include <stddef.h>

#include "error.h"

/* Confines the calling process, for good, as above: `folders` are the
 * folders it may read beneath, or files it may read (`count` of them);
 * `keep` the descriptors (`keep_count`) to leave open. What this kernel
 * lacks is skipped, and `warning` (`size` bytes) then says so in one line
 * ("" when nothing was skipped). Returns SKV_OK, or an error when a step
 * the kernel has fails (the caller must not go on unconfined). */
skv_result sandbox_enter(const char *const *folders, int count, const int *keep, int keep_count, char *warning,
                         size_t size, skv_error *err);

/* The folder of `path` into `out` ("." for a bare name). */
void sandbox_folder_of(const char *path, char *out, size_t size);

/* The folder a guarded import of `path` may read beneath: the folder of
 * the file `path` names once symbolic links are followed (a model opened
 * through a link from elsewhere reads beside its real file), not above
 * it. Where the path cannot be resolved, its own folder. */
void sandbox_reach_of(const char *path, char *out, size_t size);

#endif
