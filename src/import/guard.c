/* guard.c - the guarded read: Assimp first reads an untrusted file in a
 * child process under address-space and time limits, so that a crash,
 * hang or runaway allocation costs the child, not Skinview; and the
 * bound on this process's own address space while it runs Assimp. */
#include "private/import_internal.h"
#include "text.h"

#include <assimp/cimport.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Memory Assimp may take to read a file: generous for real models (Assimp
 * needs a small multiple of the file), far below what a broken header can
 * ask for; --import-memory sets it. */
static rlim_t import_memory_budget(const char *path, const skv_import_desc *desc)
{
    if (desc && desc->memory_limit_mb > 0) return (rlim_t)desc->memory_limit_mb << 20;
    struct stat st;
    rlim_t file = stat(path, &st) == 0 ? (rlim_t)st.st_size : 0;
    rlim_t limit = (rlim_t)2 << 30; /* 2 GiB */
    if (file * 16 > limit) limit = file * 16;
    return limit;
}

void memory_bound_begin(memory_bound *bound, const char *path, const skv_import_desc *desc)
{
    bound->active = 0;
#ifndef SKV_SANITIZE
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    if (pages <= 0 || getrlimit(RLIMIT_AS, &bound->saved) != 0) return;
    rlim_t want = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + import_memory_budget(path, desc);
    if (bound->saved.rlim_cur != RLIM_INFINITY && bound->saved.rlim_cur <= want) return; /* tighter already */
    if (bound->saved.rlim_max != RLIM_INFINITY && want > bound->saved.rlim_max) return;
    struct rlimit limit = {want, bound->saved.rlim_max};
    bound->active = setrlimit(RLIMIT_AS, &limit) == 0;
#else
    (void)path, (void)desc;
#endif
}

void memory_bound_end(memory_bound *bound)
{
    if (bound->active) setrlimit(RLIMIT_AS, &bound->saved);
    bound->active = 0;
}

/* Assimp can quote the rest of a broken file in its message (a mangled
 * SMD: ~900 KB). The error line keeps its start: this many bytes from the
 * guarded child, shown as at most MESSAGE_CHARS characters. Any message
 * cut at GUARD_MESSAGE_BYTES is longer than MESSAGE_CHARS characters (a
 * character is at most 4 bytes), so the line shows that it was cut. */
enum { MESSAGE_CHARS = 300, GUARD_MESSAGE_BYTES = 4 * MESSAGE_CHARS + 16 };

/* "cannot import: " and Assimp's message, cut and escaped to one line. */
skv_result fail_import(skv_error *err, const char *message)
{
    if (strstr(message, "bad_alloc"))
        return skv_fail(err, SKV_ERR_IMPORT, "cannot import: Assimp ran out of the memory it may use for one file "
                        "(--import-memory)");
    char line[sizeof(skv_error) - sizeof "cannot import: "]; /* so the "…" is not cut off */
    return skv_fail(err, SKV_ERR_IMPORT, "cannot import: %s", text_line(line, sizeof line, message, MESSAGE_CHARS));
}

enum { WATCH_TIMED_OUT = -1 };

/* Reads the guarded child's message from `fd` while the child runs, until
 * end of file (the child has exited: it is the only writer) or `timeout`
 * seconds; the child would block writing a message longer than the pipe
 * holds if nobody read it. Keeps the first `size` - 1 bytes in `why`.
 * Returns 0, WATCH_TIMED_OUT, or an errno value. */
static int watch_child(int fd, double timeout, char *why, size_t size)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t kept = 0;
    why[0] = '\0';
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = timeout - ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec));
        if (left <= 0.0) return WATCH_TIMED_OUT;
        struct pollfd watched = {.fd = fd, .events = POLLIN};
        int ready = poll(&watched, 1, left >= INT_MAX / 1000 ? INT_MAX : (int)ceil(left * 1000.0));
        if (ready < 0 && errno != EINTR) return errno;
        if (ready <= 0) continue; /* interrupted, or the time is up: checked above */
        char chunk[4096];
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got < 0) return errno;
        if (got == 0) return 0;
        size_t keep = size - 1 - kept < (size_t)got ? size - 1 - kept : (size_t)got;
        memcpy(why + kept, chunk, keep);
        kept += keep;
        why[kept] = '\0';
    }
}

/* Checks the guarded child makes on a scene Assimp returned, so that the
 * parent never reads it: NULL if it may, else why not. An incomplete scene
 * (AI_SCENE_FLAGS_INCOMPLETE) with neither meshes nor clips is Assimp
 * giving up without an error. A scene holding more than 64 bytes of mesh
 * data per byte of the file and over 256 MiB in all is a decompression or
 * count bomb: real models stay within a small multiple of their size
 * (compressed FBX ~10x), and the parent would need as much again to
 * convert it. `size` is the file's size, or -1 to stat `path`. */
static const char *scene_refused(const struct aiScene *scene, const char *path, long size)
{
    if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) && scene->mNumMeshes == 0 && scene->mNumAnimations == 0)
        return "Assimp returned an incomplete scene with no meshes and no animations";
    double bytes = 0.0;
    for (unsigned m = 0; scene->mMeshes && m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!mesh) continue;
        int streams = (mesh->mVertices != NULL) + (mesh->mNormals != NULL) + 2 * (mesh->mTangents != NULL);
        for (int t = 0; t < AI_MAX_NUMBER_OF_TEXTURECOORDS; t++) streams += mesh->mTextureCoords[t] != NULL;
        for (int c = 0; c < AI_MAX_NUMBER_OF_COLOR_SETS; c++) streams += mesh->mColors[c] != NULL;
        bytes += (double)mesh->mNumVertices * 12.0 * streams + (double)mesh->mNumFaces * 12.0;
        for (unsigned b = 0; mesh->mBones && b < mesh->mNumBones; b++)
            if (mesh->mBones[b]) bytes += (double)mesh->mBones[b]->mNumWeights * 8.0;
    }
    struct stat st;
    double file = size >= 0 ? (double)size : stat(path, &st) == 0 ? (double)st.st_size : 0.0;
    if (bytes > 256.0 * 1024 * 1024 && bytes > 64.0 * file)
        return "the scene is absurdly large for the file (over 64 bytes of mesh data per byte, and over 256 MiB)";
    return NULL;
}

/* Reads `path` with Assimp in a child process. Returns SKV_OK when the
 * child read it; otherwise an error saying how Assimp failed. */
skv_result guarded_read(const char *path, const unsigned char *bytes, long size, const char *hint,
                               unsigned flags, const skv_import_desc *desc, skv_error *err)
{
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) return SKV_OK; /* cannot guard: read unguarded */
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        close(pipe_fd[0]);
        close(pipe_fd[1]);
        return SKV_OK;
    }
    if (child == 0) {
        close(pipe_fd[0]);
        /* Only Assimp runs here; what it (or a sanitizer inside it) would
         * print is summed up by the parent's one line instead. */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        /* Crash handlers the host installed (sanitizers, libFuzzer) must
         * not run in this throwaway child: it dies by the signal, and the
         * parent names it. */
        const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
#ifndef SKV_SANITIZE
        struct rlimit limit = {import_memory_budget(path, desc), import_memory_budget(path, desc)};
        setrlimit(RLIMIT_AS, &limit);
#endif
        const struct aiScene *scene = read_scene(path, bytes, size, hint, flags, NULL);
        const char *why = scene ? scene_refused(scene, path, bytes ? size : -1) : aiGetErrorString();
        if (why) {
            /* The parent keeps only the start; no need to send more. */
            size_t length = strlen(why);
            if (length > GUARD_MESSAGE_BYTES) length = GUARD_MESSAGE_BYTES;
            ssize_t written = write(pipe_fd[1], why, length);
            (void)written;
        }
        int refused = why != NULL;
        if (scene) aiReleaseImport(scene); /* freed, so leak checkers that follow the child see no loss */
        _exit(refused);
    }
    close(pipe_fd[1]);
    double timeout = desc && desc->timeout_seconds > 0 ? desc->timeout_seconds : 60.0;
    char why[GUARD_MESSAGE_BYTES + 1];
    int watched = watch_child(pipe_fd[0], timeout, why, sizeof why);
    close(pipe_fd[0]);
    int status = 0;
    if (watched != 0) kill(child, SIGKILL); /* hung, or cannot be watched: it must not outlive us */
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (watched == WATCH_TIMED_OUT)
        return skv_fail(err, SKV_ERR_IMPORT, "Assimp did not finish reading it within %g s (see --trust)", timeout);
    if (watched != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot watch the guarded read: %s", strerror(watched));
    if (WIFSIGNALED(status))
        return skv_fail(err, SKV_ERR_IMPORT, "Assimp crashed reading it (signal %d); nothing was shown",
                        WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return fail_import(err, why[0] ? why : "Assimp ran out of its memory limit or failed without a message");
    return SKV_OK;
}
