/* sandbox.h - what the guarded child may still do once it has the file:
 * read the folders it was given, and nothing else that reaches outside
 * the process. No Assimp type here; the tests run it on its own
 * (tests/unit/test_sandbox.c tries what it must deny).
 *
 * - Landlock (kernel 5.13+): reading files and listing folders only
 *   beneath the given folders; writing, creating, removing, renaming,
 *   truncating nowhere; from ABI 4 no TCP bind/connect, from ABI 6 no
 *   signals or abstract sockets beyond the child itself.
 * - seccomp BPF: no exec, no new process (threads only), no ptrace or
 *   other process's memory, no sockets, no namespaces, mounts, modules, io_uring or BPF; no open for
 *   writing or creating, no file made, removed, renamed or re-permitted;
 *   kill/tgkill only to itself. Denied calls fail with EPERM.
 * - Every inherited descriptor but stdin/stdout/stderr (put on /dev/null)
 *   and the ones kept is closed first: Landlock does not cover files that
 *   are already open (a window's X11 socket, the user's output file). */
#ifndef SKV_SANDBOX_H
#define SKV_SANDBOX_H

#include <stddef.h>

#include "error.h"

/* Confines the calling process, for good, as above: `folders` are the
 * folders it may read beneath (`count` of them); `keep` the descriptors
 * (`keep_count`) to leave open. What this kernel lacks is skipped, and
 * `warning` (`size` bytes) then says so in one line ("" when nothing was
 * skipped). Returns SKV_OK, or an error when a step the kernel has fails
 * (the caller must not go on unconfined). */
skv_result sandbox_enter(const char *const *folders, int count, const int *keep, int keep_count, char *warning,
                         size_t size, skv_error *err);

/* The folder of `path` into `out` ("." for a bare name). */
void sandbox_folder_of(const char *path, char *out, size_t size);

/* The folder a guarded import of `path` may read beneath: the parent of
 * the file's folder (so ../textures beside it is reachable), or the
 * folder itself where that parent is the root. */
void sandbox_reach_of(const char *path, char *out, size_t size);

#endif
