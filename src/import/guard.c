/* guard.c - the guarded import: an untrusted file is read by Assimp and
 * converted into a finished skv_model in a child process, sandboxed
 * (sandbox.c) and under address-space, CPU-time, output-size and
 * wall-time limits, so that a crash, hang, runaway allocation or worse
 * costs the child, not Skinview. The child hands the model back as one
 * flat block (blob.h) in a memfd this process maps (or through a pipe);
 * this process checks it and adopts it, and never runs Assimp on the
 * file. Also the bound on this process's own address space while it runs
 * Assimp itself (--trust). */
#define _GNU_SOURCE /* pipe2, memfd_create */
#include "private/import_internal.h"
#include "private/blob.h"
#include "private/sandbox.h"
#include "text.h"

#include <assimp/cimport.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0 /* no valgrind headers: not built for it */
#endif
#include <sys/mman.h>
#include <malloc.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Memory one import may take (the guarded child's address space beyond
 * what it maps, its block, the texels in it); --import-memory sets it.
 * The floor is several times what the biggest real models need, and low
 * enough that a small file that inflates (deflated FBX arrays, a gzip'd
 * .blend, a zip of XML, a count that asks for gigabytes) cannot take
 * skinview and its child together past 1 GiB (bad_input's bound, on
 * tests/tools/gen's bombs). A big file gets 16 times its size: Assimp
 * needs a small multiple of the file. */
uint64_t import_memory_budget(const char *path, const skv_import_desc *desc)
{
    if (desc && desc->memory_limit_mb > 0) return (rlim_t)desc->memory_limit_mb << 20;
    struct stat st;
    rlim_t file = path && stat(path, &st) == 0 ? (rlim_t)st.st_size : 0;
    rlim_t limit = (rlim_t)768 << 20; /* 768 MiB */
    if (file * 16 > limit) limit = file * 16;
    return limit;
}

/* The process's address space now (/proc/self/statm's first field), in
 * bytes; 0 if unknown. A bound on Assimp's memory is this plus its
 * budget: the libraries, and a host's own data (a viewer's model, which
 * a guarded child inherits), are not Assimp's. */
static rlim_t address_space_now(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    return pages > 0 ? (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) : 0;
}

int is_bad_alloc_message(const char *message, size_t length)
{
    static const char *const forms[] = {"std::bad_alloc", "std::exception: std::bad_alloc",
                                        "std::exception(\"std::bad_alloc\")"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (length == strlen(forms[i]) && memcmp(message, forms[i], length) == 0) return 1;
    return 0;
}

/* Assimp's log line for an allocation that failed: "Error, T0: " and the
 * message alone (is_bad_alloc_message), as its readers log what they
 * catch. Not a line that only ends so (an OBJ's "Unable to locate
 * material file std::bad_alloc"). */
static void watch_for_bad_alloc(const char *message, char *user)
{
    memory_bound *bound = (memory_bound *)(void *)user;
    if (strncmp(message, "Error,", 6) != 0) return;
    const char *p = message + 6;
    while (*p == ' ') p++;
    if (*p == 'T') { /* the thread's number */
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9') q++;
        if (q > p + 1 && *q == ':') p = q + 1;
    }
    while (*p == ' ') p++;
    size_t length = strlen(p);
    while (length > 0 && (p[length - 1] == '\n' || p[length - 1] == '\r')) length--;
    if (is_bad_alloc_message(p, length)) bound->ran_out = 1;
}

void memory_bound_begin(memory_bound *bound, const char *path, const skv_import_desc *desc)
{
    bound->active = 0;
    /* Assimp's log is process-wide; imports here run one at a time. */
    bound->ran_out = 0;
    bound->watch.callback = watch_for_bad_alloc;
    bound->watch.user = (char *)(void *)bound;
    aiAttachLogStream(&bound->watch);
#ifndef SKV_SANITIZE
    rlim_t now = address_space_now();
    if (now == 0 || getrlimit(RLIMIT_AS, &bound->saved) != 0) return;
    rlim_t want = now + import_memory_budget(path, desc);
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
    aiDetachLogStream(&bound->watch);
}

/* Assimp can quote the rest of a broken file in its message (a mangled
 * SMD: ~900 KB). The error line keeps its start: this many bytes from the
 * guarded child, shown as at most MESSAGE_CHARS characters. Any message
 * cut at GUARD_MESSAGE_BYTES is longer than MESSAGE_CHARS characters (a
 * character is at most 4 bytes), so the line shows that it was cut. */
enum { MESSAGE_CHARS = 300, GUARD_MESSAGE_BYTES = 4 * MESSAGE_CHARS + 16 };

/* The budget's words, wherever it ran out. */
#define RAN_OUT "ran out of the memory it may use for one file (--import-memory)"

skv_result fail_ran_out(skv_error *err)
{
    return skv_fail(err, SKV_ERR_IMPORT, "cannot import: Assimp " RAN_OUT);
}

/* "cannot import: " and Assimp's message, cut and escaped to one line. */
skv_result fail_import(skv_error *err, const char *message)
{
    if (is_bad_alloc_message(message, strlen(message))) return fail_ran_out(err);
    char line[sizeof(skv_error) - sizeof "cannot import: "]; /* so the "…" is not cut off */
    return skv_fail(err, SKV_ERR_IMPORT, "cannot import: %s", text_line(line, sizeof line, message, MESSAGE_CHARS));
}

enum { WATCH_TIMED_OUT = -1, WATCH_TOO_LARGE = -2 };

/* Smaller blocks are not worth a trip: writing them allocates in well
 * under a millisecond. */
enum { GUARD_EXPECT_MIN_BYTES = 1 << 20 };

/* What the guarded child sends: its error line, or its model. */
typedef struct child_output {
    char why[GUARD_MESSAGE_BYTES + 1]; /* the first bytes of its message */
    size_t why_kept;
    unsigned char *model; /* the block, malloc'd */
    size_t model_size, model_capacity, model_limit;
    unsigned char expected[8]; /* guard_expect's size, as it arrives */
    size_t expected_got;
    int reserved; /* that much memory set aside in the memfd (reserve_block) */
} child_output;

/* Sets `bytes` (the child's guess) aside in the memfd the child will
 * write its block into, while it still converts. The child's write then
 * finds its pages allocated: writing 7.2 MB into a fresh memfd takes
 * ~3 ms, most of it the kernel allocating and clearing 1,760 pages,
 * ~1.7 ms into reserved ones; the parent had nothing else to do. Beyond
 * the file's end (KEEP_SIZE): the size stays what the child writes, and
 * guarded_import gives back what it did not use. Only a hint, from an
 * untrusted child: at most RESERVE_MAX_BYTES (a bigger block allocates
 * the rest as it is written) and the block's limit; none under a
 * file-size limit (ulimit -f), which fallocate on a memfd obeys even
 * beyond the end: SIGXFSZ would kill this process. */
enum { RESERVE_MAX_BYTES = 256 << 20 };
static void reserve_block(int shared_fd, child_output *out)
{
    uint64_t bytes;
    memcpy(&bytes, out->expected, sizeof bytes);
    if (bytes > out->model_limit) bytes = out->model_limit;
    if (bytes > RESERVE_MAX_BYTES) bytes = RESERVE_MAX_BYTES;
    struct rlimit size_limit;
    if (getrlimit(RLIMIT_FSIZE, &size_limit) != 0 || size_limit.rlim_cur != RLIM_INFINITY) return;
    if (shared_fd >= 0 && bytes >= GUARD_EXPECT_MIN_BYTES)
        out->reserved = fallocate(shared_fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) == 0;
}

/* Room for `more` bytes of the model block; 0, or WATCH_TOO_LARGE /
 * ENOMEM. Once its header is in, the block's declared size (within the
 * limit) sizes the buffer in one step; before, it doubles. */
static int model_room(child_output *out, size_t more)
{
    if (more > out->model_limit - out->model_size) return WATCH_TOO_LARGE;
    size_t want = out->model_size + more;
    if (want <= out->model_capacity) return 0;
    size_t cap = out->model_capacity ? out->model_capacity * 2 : 1 << 16;
    uint64_t declared;
    if (out->model_size >= 24) { /* magic, version and layout, then the size */
        memcpy(&declared, out->model + 16, sizeof declared);
        if (declared >= want && declared <= out->model_limit) cap = (size_t)declared;
    }
    if (cap < want) cap = want;
    if (cap > out->model_limit) cap = out->model_limit; /* want is within it (above) */
    unsigned char *grown = realloc(out->model, cap);
    if (!grown) return ENOMEM;
    out->model = grown, out->model_capacity = cap;
    return 0;
}

/* Now on the monotonic clock, in seconds: the guarded import's deadline
 * is on it. */
static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Milliseconds for poll until `deadline`, rounded up (0 once it passed). */
static int poll_ms(double deadline)
{
    double left = deadline - monotonic_seconds();
    if (!(left > 0.0)) return 0;
    return left >= INT_MAX / 1000 ? INT_MAX : (int)ceil(left * 1000.0);
}

/* Reads the guarded child's message (`message_fd`), model block
 * (`model_fd`) and expected size (`expect_fd`, acted on at once:
 * reserve_block into `shared_fd`) while the child runs, until all three
 * reach end of file (the child closed them, or exited) or `deadline`
 * (monotonic_seconds) passes; the child would block writing more than a
 * pipe holds if nobody read it. Returns 0, WATCH_TIMED_OUT,
 * WATCH_TOO_LARGE, or an errno value. */
static int watch_child(int message_fd, int model_fd, int expect_fd, int shared_fd, double deadline,
                       child_output *out)
{
    out->why[0] = '\0';
    struct pollfd watched[3] = {{.fd = message_fd, .events = POLLIN},
                                {.fd = model_fd, .events = POLLIN},
                                {.fd = expect_fd, .events = POLLIN}};
    while (watched[0].fd >= 0 || watched[1].fd >= 0 || watched[2].fd >= 0) {
        int ms = poll_ms(deadline);
        if (ms == 0) return WATCH_TIMED_OUT;
        int ready = poll(watched, 3, ms);
        if (ready < 0 && errno != EINTR) return errno;
        if (ready <= 0) continue; /* interrupted, or the time is up: checked above */
        for (int i = 0; i < 3; i++) {
            if (watched[i].fd < 0 || !watched[i].revents) continue;
            char chunk[4096];
            void *into = chunk;
            size_t room = sizeof chunk;
            if (i == 2 && out->expected_got < sizeof out->expected) { /* more than 8 bytes: read and dropped */
                into = out->expected + out->expected_got;
                room = sizeof out->expected - out->expected_got;
            }
            if (i == 1 && out->model_size < out->model_limit) { /* the model block: straight into its buffer */
                int failed = model_room(out, 1);
                if (failed) return failed;
                into = out->model + out->model_size;
                room = out->model_capacity - out->model_size;
                if (out->model_size < 24 && room > 24 - out->model_size) room = 24 - out->model_size;
            } else if (i == 1) { /* at the limit: only the block's end may follow */
                room = 1;
            }
            ssize_t got = read(watched[i].fd, into, room);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got < 0) return errno;
            if (got == 0) {
                watched[i].fd = -1; /* poll skips it from now on */
                continue;
            }
            if (i == 1) {
                if (into == chunk) return WATCH_TOO_LARGE;
                out->model_size += (size_t)got;
                continue;
            }
            if (i == 2) {
                if (into != chunk && (out->expected_got += (size_t)got) == sizeof out->expected)
                    reserve_block(shared_fd, out);
                continue;
            }
            size_t left = sizeof out->why - 1 - out->why_kept;
            size_t keep = left < (size_t)got ? left : (size_t)got;
            memcpy(out->why + out->why_kept, chunk, keep);
            out->why_kept += keep;
            out->why[out->why_kept] = '\0';
        }
    }
    return 0;
}

/* Checks the guarded child makes on a scene Assimp returned, before
 * converting it: NULL if it may, else why not. An incomplete scene
 * (AI_SCENE_FLAGS_INCOMPLETE) with neither meshes nor clips is Assimp
 * giving up without an error. A scene holding more than 64 bytes of mesh
 * data per byte of the file and over 256 MiB in all is a decompression or
 * count bomb: real models stay within a small multiple of their size
 * (compressed FBX ~10x). `size` is the file's size, or -1 to stat `path`. */
const char *scene_refused(const struct aiScene *scene, const char *path, long size)
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

struct guard_channel {
    int fd; /* the pipe guard_expect writes to; -1 once it has */
};

void guard_expect(guard_channel *channel, uint64_t bytes)
{
    if (!channel || channel->fd < 0) return;
    if (bytes >= GUARD_EXPECT_MIN_BYTES) {
        ssize_t written = write(channel->fd, &bytes, sizeof bytes); /* a pipe takes 8 bytes whole */
        (void)written; /* only a hint: without it, the write allocates */
    }
    close(channel->fd);
    channel->fd = -1;
}

/* How many times the node tree names each mesh (the conversion converts
 * a mesh under two nodes twice), into `uses`; walked without recursion
 * (a file may nest nodes 100,000 deep), at most NODES_VISITED nodes. */
enum { NODES_VISITED = 1 << 22 };
static void count_mesh_uses(const struct aiScene *scene, uint32_t *uses)
{
    const struct aiNode **stack = NULL;
    size_t depth = 0, capacity = 0, visited = 0;
    const struct aiNode *node = scene->mRootNode;
    while (node && visited++ < NODES_VISITED) {
        for (unsigned i = 0; node->mMeshes && i < node->mNumMeshes; i++)
            if (node->mMeshes[i] < scene->mNumMeshes) uses[node->mMeshes[i]]++;
        for (unsigned c = 0; node->mChildren && c < node->mNumChildren; c++) {
            if (!node->mChildren[c]) continue;
            if (depth == capacity) {
                size_t grown = capacity ? capacity * 2 : 64;
                const struct aiNode **bigger = realloc(stack, grown * sizeof *stack);
                if (!bigger) break; /* an estimate: the rest goes uncounted */
                stack = bigger, capacity = grown;
            }
            stack[depth++] = node->mChildren[c];
        }
        node = depth ? stack[--depth] : NULL;
    }
    free(stack);
}

uint64_t scene_block_estimate(const struct aiScene *scene, int slots)
{
    /* What the conversion keeps per vertex (model.h): position, normal,
     * uv, `slots` ids and weights, the start of its influence list, at
     * least one influence, tangents where the mesh has them; three
     * indices a face; a time and a value per key. Names, nodes and
     * materials are small beside those. */
    uint64_t bytes = 0;
    uint32_t *uses = scene->mMeshes && scene->mNumMeshes ? calloc(scene->mNumMeshes, sizeof *uses) : NULL;
    if (uses) count_mesh_uses(scene, uses);
    for (unsigned m = 0; uses && m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!mesh || !uses[m] || !(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue; /* skipped */
        uint64_t weights = 0;
        for (unsigned b = 0; mesh->mBones && b < mesh->mNumBones; b++)
            if (mesh->mBones[b]) weights += mesh->mBones[b]->mNumWeights;
        uint64_t per_vertex = 12 + 12 + 8 + (uint64_t)slots * 6 + 4 + (mesh->mTangents ? 16 : 0);
        bytes += uses[m] * (mesh->mNumVertices * per_vertex +
                            (weights > mesh->mNumVertices ? weights : mesh->mNumVertices) * 8 +
                            (uint64_t)mesh->mNumFaces * 12);
    }
    free(uses);
    bytes += scene_texel_estimate(scene); /* decoded in the child, within the block */
    for (unsigned a = 0; scene->mAnimations && a < scene->mNumAnimations; a++) {
        const struct aiAnimation *anim = scene->mAnimations[a];
        for (unsigned c = 0; anim && anim->mChannels && c < anim->mNumChannels; c++) {
            const struct aiNodeAnim *ch = anim->mChannels[c];
            if (ch) bytes += (uint64_t)ch->mNumPositionKeys * 16 + (uint64_t)ch->mNumRotationKeys * 20 +
                             (uint64_t)ch->mNumScalingKeys * 16;
        }
    }
    return bytes;
}

/* The guarded child: limits, sandbox (sandbox.h), the work, the block.
 * Never returns. */
static void run_child(const char *path, const skv_import_desc *desc, guarded_work work, void *arg, uint64_t carried,
                      int message_fd, int model_fd, int expect_fd, int shared_fd, double timeout)
{
    /* Only the import runs here; what it (or a sanitizer inside it) would
     * print is summed up by the parent's one line instead. */
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    /* Crash handlers the host installed (sanitizers, libFuzzer) must not
     * run in this throwaway child: it dies by the signal, and the parent
     * names it. A write past the output limit fails with EFBIG instead
     * of killing it. */
    const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN); /* a parent that gave up: the write fails instead */
#ifdef __GLIBC__
    /* This process ends once it has handed the model over: what Assimp
     * frees is better kept for the conversion's next allocations than
     * given back to the kernel and faulted in again, cleared (glibc trims
     * the heap's top and unmaps big blocks on free). 2CylinderEngine.glb:
     * 5,700 page faults in the child without this, 3,500 with (--trust:
     * 4,900). The address-space limit below still bounds it. */
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
#endif
    rlim_t budget = import_memory_budget(path, desc);
#ifndef SKV_SANITIZE
    /* On top of what the child already maps, as memory_bound_begin: the
     * budget alone, below that, failed every mapping and the stack's
     * growth (--import-memory 16: SIGSEGV on any file, even worm.dae). */
    rlim_t bound = address_space_now() + budget;
    struct rlimit memory = {bound, bound};
    setrlimit(RLIMIT_AS, &memory);
#endif
    /* CPU seconds: the parent's wall-clock timeout stops a hang; this
     * stops a child the parent could not watch. Output: the only file it
     * can write is the memfd for the model block (sandbox.h), which may
     * not outgrow the memory budget (and what it carries: a clip job's
     * host model). */
    rlim_t seconds = (rlim_t)ceil(timeout) + 1, block = budget + (rlim_t)carried;
    struct rlimit cpu = {seconds, seconds}, output = {block, block};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_FSIZE, &output);

    /* What it may read: beneath the model's own folder, and each
     * --anim-file's, their real ones where the path is a link (the import
     * reads the real path: import.c); nothing above them, where a
     * download's "../" reaches the user's other files. */
    enum { MAX_FOLDERS = 64 };
    char folder_names[MAX_FOLDERS][4096];
    const char *folders[MAX_FOLDERS];
    int folder_count = 0;
    /* No path (a decoding job, whose bytes come with it): no folder. */
    for (int f = path ? -1 : 0; f < (desc ? desc->anim_file_count : 0) && folder_count < MAX_FOLDERS;
         f++, folder_count++) {
        sandbox_reach_of(f < 0 ? path : desc->anim_files[f], folder_names[folder_count], sizeof folder_names[0]);
        folders[folder_count] = folder_names[folder_count];
    }
    skv_error err = {{0}};
    char warning[300];
    const int keep[] = {message_fd, model_fd, expect_fd, shared_fd};
    skv_result r = sandbox_enter(folders, folder_count, keep, shared_fd >= 0 ? 4 : 3, warning, sizeof warning, &err);
    skv_model model;
    int64_t extra = 0;
    guard_channel channel = {expect_fd};
    if (r == SKV_OK) r = work(arg, &channel, &model, &extra, &err);
    guard_expect(&channel, 0); /* closed, if the work did not tell */
    if (r == SKV_OK && warning[0]) model_warn(&model, "%s", warning);
    /* The model is not freed: the process ends here (and a clip job's
     * model is the parent's, shared copy-on-write). */
    if (r == SKV_OK) {
        /* Into the memfd the parent maps; where a file-size limit the
         * child cannot raise (ulimit -f) stops that, through the pipe. */
        int error = -1;
        if (shared_fd >= 0) r = blob_write_fd(&model, extra, shared_fd, &error, &err);
        if (shared_fd < 0 || (r != SKV_OK && error != 0)) {
            if (shared_fd >= 0 && ftruncate(shared_fd, 0) != 0)
                r = skv_fail(&err, SKV_ERR_IMPORT, "cannot hand the model over: %s", strerror(errno));
            else
                r = blob_write_fd(&model, extra, model_fd, &error, &err);
        }
    }
    if (r == SKV_ERR_MEMORY) /* past the budget above, as Assimp's own run-out (fail_import) */
        r = skv_fail(&err, SKV_ERR_IMPORT, "cannot import: converting it " RAN_OUT);
    if (r != SKV_OK) {
        /* The parent keeps only the start; no need to send more. */
        size_t length = strlen(err.message);
        if (length > GUARD_MESSAGE_BYTES) length = GUARD_MESSAGE_BYTES;
        ssize_t written = write(message_fd, err.message, length);
        (void)written;
    }
    /* Closed before exiting: the parent sees the end at once, not after
     * the kernel has torn down this process's memory. */
    close(model_fd);
    close(message_fd);
    if (shared_fd >= 0) close(shared_fd);
    _exit(r == SKV_OK ? 0 : (int)r);
}

/* Waits for `child` to end until `deadline` (monotonic_seconds): 1 once
 * it has (reaped, its status in *status; also where it was reaped
 * elsewhere: a host that ignores SIGCHLD), 0 if it still runs then. A
 * child that closed its pipes ends at once unless it was taken over: it
 * may then sleep or spin, and must not keep this process waiting past
 * the deadline. Woken by the child's pidfd; without one (a kernel before
 * 5.3), by polling every millisecond. */
static int wait_until(pid_t child, double deadline, int *status)
{
    int pidfd = -1;
#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
    int ended = 0;
    for (;;) {
        pid_t got = waitpid(child, status, WNOHANG);
        if (got == child || (got < 0 && errno != EINTR)) {
            ended = 1;
            break;
        }
        int ms = poll_ms(deadline);
        if (ms == 0) break;
        if (pidfd >= 0) {
            struct pollfd exit_fd = {.fd = pidfd, .events = POLLIN};
            poll(&exit_fd, 1, ms); /* readable once it exits; interrupted or timed out: looked at again */
        } else {
            struct timespec step = {0, 1000000};
            nanosleep(&step, NULL);
        }
    }
    if (pidfd >= 0) close(pidfd);
    return ended;
}

/* The exit status a child may give: the import's own codes. */
static skv_result child_code(int status)
{
    switch (status) {
    case SKV_ERR_FILE: case SKV_ERR_IMPORT: case SKV_ERR_CONTENT: case SKV_ERR_ANIM: case SKV_ERR_MEMORY:
        return (skv_result)status;
    default:
        return SKV_ERR_IMPORT;
    }
}

/* Reads the child's block into `model`: from the memfd where it wrote
 * one, else from the pipe's copy in `out`. The caller makes sure nothing
 * changes the memfd meanwhile. */
static skv_result take_block(int shared_fd, const child_output *out, skv_model *model, int64_t *extra, skv_error *err)
{
    struct stat shared;
    size_t shared_size = shared_fd >= 0 && fstat(shared_fd, &shared) == 0 && shared.st_size > 0
                             ? (size_t)shared.st_size
                             : 0;
    if (shared_size > out->model_limit)
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is larger than its memory budget (--import-memory)");
    if (shared_size > 0) {
        /* Private and writable: the model's vertex arrays stay in this
         * mapping (blob_adopt), not copied out of it; a write to them
         * copies that page for this process alone. */
        void *bytes = mmap(NULL, shared_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, shared_fd, 0);
        if (bytes == MAP_FAILED)
            return skv_fail(err, SKV_ERR_MEMORY, "cannot map the guarded import's model: %s", strerror(errno));
        skv_result r = blob_adopt(bytes, shared_size, model, extra, err);
        if (r != SKV_OK) munmap(bytes, shared_size);
        return r;
    }
    if (out->model_size > 0) return blob_read(out->model, out->model_size, model, extra, err);
    return skv_fail(err, SKV_ERR_IMPORT, "the guarded import ended without a model");
}

skv_result guarded_import(const char *path, const skv_import_desc *desc, guarded_work work, void *arg,
                          uint64_t carried, skv_model *model, int64_t *extra, skv_error *err)
{
    memset(model, 0, sizeof *model);
    *extra = 0;
    double timeout = desc && desc->timeout_seconds > 0 ? desc->timeout_seconds : 60.0;
    /* One deadline for the whole import: the child's work, its block's
     * hand-over and its end. By then the child is killed and reaped,
     * whatever it does (issue #48). */
    double deadline = monotonic_seconds() + timeout;
    /* The child's model block goes into a memfd this process then maps;
     * a pipe takes it instead where the user's output-size limit (ulimit
     * -f, which the child cannot raise) stops writes to the memfd. A
     * second pipe carries the child's error line, a third the size it
     * expects its block to take (guard_expect). */
    int pipe_fd[2], model_pipe[2], expect_pipe[2];
    if (pipe2(pipe_fd, O_CLOEXEC) != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot guard the import: pipe: %s (see --trust)", strerror(errno));
    if (pipe2(model_pipe, O_CLOEXEC) != 0) {
        int e = errno;
        close(pipe_fd[0]), close(pipe_fd[1]);
        return skv_fail(err, SKV_ERR_IMPORT, "cannot guard the import: pipe: %s (see --trust)", strerror(e));
    }
    if (pipe2(expect_pipe, O_CLOEXEC) != 0) {
        int e = errno;
        close(pipe_fd[0]), close(pipe_fd[1]), close(model_pipe[0]), close(model_pipe[1]);
        return skv_fail(err, SKV_ERR_IMPORT, "cannot guard the import: pipe: %s (see --trust)", strerror(e));
    }
    /* A big pipe: fewer trips between the two processes for a big model. */
    fcntl(model_pipe[1], F_SETPIPE_SZ, 1 << 20);
    int shared_fd = memfd_create("skinview-model", MFD_CLOEXEC | MFD_ALLOW_SEALING); /* -1: the pipe alone */
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        close(pipe_fd[0]), close(pipe_fd[1]), close(model_pipe[0]), close(model_pipe[1]);
        close(expect_pipe[0]), close(expect_pipe[1]);
        if (shared_fd >= 0) close(shared_fd);
        return skv_fail(err, SKV_ERR_IMPORT, "cannot guard the import: fork: %s (see --trust)", strerror(e));
    }
    if (child == 0) {
        close(pipe_fd[0]), close(model_pipe[0]), close(expect_pipe[0]);
        run_child(path, desc, work, arg, carried, pipe_fd[1], model_pipe[1], expect_pipe[1], shared_fd, timeout);
    }
    close(pipe_fd[1]), close(model_pipe[1]), close(expect_pipe[1]);
    /* The child reads meanwhile: its pipes hold what it says until
     * watch_child reads them, its block goes into the memfd; the deadline
     * counts from before. */
    if (desc && desc->while_reading) desc->while_reading(desc->while_reading_user);
    child_output out = {.model_limit = (size_t)(import_memory_budget(path, desc) + carried)};
    int watched = watch_child(pipe_fd[0], model_pipe[0], expect_pipe[0], shared_fd, deadline, &out);
    close(pipe_fd[0]), close(model_pipe[0]), close(expect_pipe[0]);
    /* What reserve_block set aside past the block's end is given back:
     * the model keeps the memfd's pages mapped as long as it lives. The
     * child writes nothing more once all three pipes ended. */
    struct stat written;
    if (out.reserved && watched == 0 && fstat(shared_fd, &written) == 0) {
        int trimmed = ftruncate(shared_fd, written.st_size);
        (void)trimmed; /* memory held longer than needed, not a wrong model */
    }
    /* All three pipes at their end: the child is done writing, but tearing down
     * Assimp's memory still takes it milliseconds (~1.6 ms for a 7 MB
     * model). The block may be checked meanwhile once nothing can change
     * it: sealed against writes and resizes, the memfd stays as it is
     * although the child still holds it (the pipe's copy is this
     * process's own). The seal fails where the child mapped the memfd
     * writable (EBUSY), which Skinview's child never does: it is killed,
     * and its block read once it is gone. The exit status is judged after
     * either way (but for a whole block, below): a failed child's model is
     * dropped. */
    int early = watched == 0 && (shared_fd < 0 || fcntl(shared_fd, F_ADD_SEALS,
                                                        F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW) == 0);
    if (watched == 0 && !early) kill(child, SIGKILL);
    skv_result taken = early ? take_block(shared_fd, &out, model, extra, err) : SKV_OK;
    const char *why = out.why;
    /* A whole, checked block and no error line: the child did its work
     * (it writes a block only then, and nothing after it), so its exit
     * status cannot change the result; it is killed, so that a child that
     * lingers after handing over cannot keep this process waiting, and
     * reaped. Not under valgrind, whose verdict on the child (leaks,
     * invalid reads: the memcheck tests) is its exit status. (Reaping it
     * on a thread of its own, not waiting for the kernel to tear its
     * memory down, saved up to 1.5 ms, but a thread ending while the next
     * import forks left the ASan build's child deadlocked: forking with
     * other threads about is what that build does not survive.) */
    if (early && taken == SKV_OK && !why[0] && !RUNNING_ON_VALGRIND && kill(child, SIGKILL) == 0) {
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
        }
        if (shared_fd >= 0) close(shared_fd);
        free(out.model);
        return SKV_OK;
    }
    /* Its pipes ended: a child that is done exits now; its status is
     * waited for until the deadline, no longer (one that closed its pipes
     * and lingers, sleeping or spinning, was taken over). */
    int status = 0, late = 0;
    int ended = watched == 0 && wait_until(child, deadline, &status);
    if (!ended) {
        /* Hung, lingering past the deadline, or not watched: it must not
         * outlive this import. Killed, it ends at once. */
        late = watched == 0;
        kill(child, SIGKILL);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
    }
    skv_result r = SKV_OK;
    if (watched == WATCH_TIMED_OUT || late)
        r = skv_fail(err, SKV_ERR_IMPORT, "Assimp did not finish reading it within %g s (see --trust)", timeout);
    else if (watched == WATCH_TOO_LARGE)
        r = skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is larger than its memory budget (--import-memory)");
    else if (watched != 0)
        r = skv_fail(err, SKV_ERR_IMPORT, "cannot watch the guarded read: %s", strerror(watched));
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        r = skv_fail(err, SKV_ERR_IMPORT, "Assimp did not finish reading it within its CPU time (see --trust)");
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        r = skv_fail(err, SKV_ERR_IMPORT, "the import tried a system call its sandbox forbids; nothing was shown");
    else if (WIFSIGNALED(status))
        r = skv_fail(err, SKV_ERR_IMPORT, "Assimp crashed reading it (signal %d); nothing was shown", WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        /* The child's line is escaped again here: the child is not trusted. */
        char line[sizeof err->message];
        r = skv_fail(err, child_code(WEXITSTATUS(status)), "%s",
                     why[0] ? text_line(line, sizeof line, why, MESSAGE_CHARS + 100)
                            : "cannot import: Assimp ran out of its memory limit or failed without a message");
    }
    if (early && r != SKV_OK && taken == SKV_OK) {
        model_free(model);
        memset(model, 0, sizeof *model);
        *extra = 0;
    }
    /* Not taken early: the child has exited and could start no other
     * process (sandbox.h), so nothing writes to the memfd any more. */
    if (r == SKV_OK) r = early ? taken : take_block(shared_fd, &out, model, extra, err);
    if (shared_fd >= 0) close(shared_fd);
    free(out.model);
    return r;
}

skv_result guard_holder_create(skv_model *model, int nodes, int textures, skv_error *err)
{
    memset(model, 0, sizeof *model);
    if (nodes < 1) nodes = 1;
    skv_skeleton *sk = &model->skeleton;
    sk->node_count = nodes;
    sk->parents = malloc((size_t)nodes * sizeof *sk->parents);
    sk->rest_local = malloc((size_t)nodes * sizeof *sk->rest_local);
    sk->node_names = calloc((size_t)nodes, sizeof *sk->node_names);
    model->influence_slots = 4;
    model->influence_start = calloc(1, sizeof *model->influence_start);
    model->material_count = 1;
    model->materials = calloc(1, sizeof *model->materials);
    model->texture_count = textures;
    model->textures = textures > 0 ? calloc((size_t)textures, sizeof *model->textures) : NULL;
    if (!sk->parents || !sk->rest_local || !sk->node_names || !model->influence_start || !model->materials ||
        (textures > 0 && !model->textures) || !(sk->node_names[0] = strdup("holder")) ||
        !(model->materials[0].name = strdup("holder"))) {
        model_free(model);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int n = 0; n < nodes; n++) {
        sk->parents[n] = n == 0 ? -1 : 0;
        glm_mat4_identity(sk->rest_local[n]);
    }
    skv_material *m = &model->materials[0];
    m->texture = -1;
    for (int k = 0; k < SKV_TEX_SLOTS; k++) m->textures[k] = -1;
    m->diffuse[0] = m->diffuse[1] = m->diffuse[2] = m->diffuse[3] = 1.0f;
    m->roughness = m->normal_scale = m->occlusion_strength = 1.0f;
    glm_mat4_identity(model->global_inverse);
    glm_mat4_identity(model->upright);
    return SKV_OK;
}
