/* import.c - the importer's entry points: check the path, read the file
 * with Assimp (after the guarded read unless trusted), convert it
 * (convert.c), and add the clips of other files (bound by clips.c);
 * version reporting.
 * Releases every aiScene before returning. */
#include "private/import_internal.h"
#include "private/blob.h"
#include "private/m3d.h"
#include "private/gltf_prep.h"
#include "private/sandbox.h"

#include <limits.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/version.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stb_ds.h>

/* --- path checks --------------------------------------------------------- */

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static skv_result check_path(const char *path, skv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return skv_fail(err, SKV_ERR_FILE, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return skv_fail(err, SKV_ERR_FILE, "is a directory, not a model file");
    if (!S_ISREG(st.st_mode)) return skv_fail(err, SKV_ERR_FILE, "not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) return skv_fail(err, SKV_ERR_FILE, "cannot open: %s", strerror(errno));
    fclose(f);
    if (st.st_size == 0) return skv_fail(err, SKV_ERR_IMPORT, "file is empty");
    return SKV_OK;
}

const char *import_assimp_version(void)
{
    static char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    return version;
}

/* Assimp's post-processing for every file. SortByPType splits point and
 * line primitives into meshes of their own; convert_meshes skips those and
 * says so (a file of lines only is then "no triangle meshes", not an
 * opaque Assimp error). */
static const unsigned import_flags = aiProcess_Triangulate | aiProcess_GenSmoothNormals |
                                     aiProcess_JoinIdenticalVertices | aiProcess_ValidateDataStructure |
                                     aiProcess_SortByPType | aiProcess_FlipUVs;

unsigned import_read_flags(void)
{
    return import_flags;
}

/* Why read_whole_file gave nothing for `path`: not a regular file with
 * bytes in it that this process may open, or one that did not fit
 * (read_whole_file's 1 GiB, or malloc under the memory bound). */
const char *unread_why(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return "empty, or not a regular file that can be read";
    if (st.st_size >= (1L << 30)) return "1 GiB or more, too large to read into memory";
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "empty, or not a regular file that can be read";
    close(fd);
    return "too large to read into memory (past --import-memory)";
}

/* An .md5anim, read for its clips: validated, as Assimp's own lookup had
 * it validated with the mesh. The Assimp fixes may hand it over from
 * memory (FIX_BEFORE_READ); where they cannot read it, NULL with
 * `*unread` saying why. */
static const struct aiScene *import_md5anim(const char *path, const char **unread)
{
    fix_context fix = {.path = path, .clips_only = 1};
    *unread = NULL;
    const struct aiScene *scene = NULL;
    if (assimp_fixes_run(FIX_BEFORE_READ, &fix) != SKV_OK)
        *unread = fix.unread;
    else if (fix.bytes)
        scene = aiImportFileFromMemory((const char *)fix.bytes, (unsigned)fix.size, aiProcess_ValidateDataStructure,
                                       fix.hint);
    else
        scene = aiImportFile(path, aiProcess_ValidateDataStructure);
    free(fix.bytes);
    return scene;
}

/* The .md5anim read the way the mesh was: in the guarded child, Assimp's
 * scene passes scene_refused too. NULL with `why` filled when it failed. */
static const struct aiScene *import_md5anim_checked(const char *path, import_mode mode, skv_error *why)
{
    const char *unread = NULL;
    const struct aiScene *scene = import_md5anim(path, &unread);
    /* A file not read never reaches Assimp, whose last message is then
     * another file's. */
    const char *refused = scene    ? (mode == IMPORT_IN_CHILD ? scene_refused(scene, path, -1) : NULL)
                        : unread ? unread
                                 : aiGetErrorString();
    if (refused) {
        fail_import(why, refused);
        if (scene) aiReleaseImport(scene);
        return NULL;
    }
    return scene;
}

/* Does the file open as the DirectX 11 book's .m3d does (m3d.h)? By its
 * header, not its name: Assimp's own M3D format shares the extension. */
static int file_is_m3d(const char *path)
{
    unsigned char head[128];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return m3d_recognised(head, got);
}

/* Files Assimp cannot read as they are, rewritten into a glTF binary in
 * memory that it then reads instead (fix->bytes, "glb"): the DirectX 11
 * book's .m3d (m3d.c: Assimp has no reader for it), and glTF as the web
 * optimisers leave it (gltf_prep.c: quantized or meshopt-compressed).
 * SKV_OK with nothing set where the file is neither; an error with
 * fix->unread saying why (in fix->reader_error) where it is refused. */
static skv_result rewrite_for_assimp(fix_context *fix)
{
    const char *path = fix->path;
    int m3d = file_is_m3d(path);
    int gltf = !m3d && (ends_with_nocase(path, ".gltf") || ends_with_nocase(path, ".glb"));
    if (!m3d && !gltf && ends_with_nocase(path, ".m3d")) {
        /* Not the book's: whichever of Assimp's readers claims the text
         * last (its DXF reader) would name itself; this says what it is. */
        fix->unread = "not a model file Skinview reads: an .m3d without the DirectX 11 book's header (Skinview "
                      "reads those; the other .m3d format, Model 3D, Assimp no longer reads)";
        return SKV_ERR_IMPORT;
    }
    if (!m3d && !gltf) return SKV_OK;
    if (gltf) {
        /* The extensions are named in the JSON: a .glb's megabytes of
         * vertices are read only where it names one. (A document that
         * does not split here is read whole below, as before.) */
        size_t json_size = 0;
        unsigned char *json = gltf_read_json(path, &json_size);
        int wanted = !json || gltf_prep_wanted(json, json_size);
        free(json);
        if (!wanted) return SKV_OK;
    }
    long size = 0;
    unsigned char *text = read_whole_file(path, &size);
    if (!text) {
        if (m3d) fix->unread = unread_why(path);
        return m3d ? SKV_ERR_IMPORT : SKV_OK; /* a glTF Assimp reads by its path, and says why not */
    }
    if (gltf && !gltf_prep_wanted(text, (size_t)size)) {
        free(text);
        return SKV_OK;
    }
    unsigned char *glb = NULL;
    size_t glb_size = 0;
    skv_result r = m3d ? m3d_to_glb(text, (size_t)size, &glb, &glb_size, &fix->reader_error)
                       : gltf_prep(path, text, (size_t)size, &glb, &glb_size, &fix->reader_error);
    free(text);
    if (r == SKV_OK && glb && glb_size > LONG_MAX) {
        free(glb);
        glb = NULL;
        r = skv_fail(&fix->reader_error, SKV_ERR_IMPORT, "too large to rewrite");
    }
    if (r != SKV_OK) {
        fix->unread = r == SKV_ERR_MEMORY ? "out of memory rewriting it for Assimp (--import-memory)"
                                          : fix->reader_error.message;
        return r;
    }
    if (glb) fix->bytes = glb, fix->size = (long)glb_size, fix->hint = "glb";
    return SKV_OK;
}

/* read_scene on fix->path, or on the bytes handed over instead (a file
 * rewritten for Assimp, rewrite_for_assimp; or by the Assimp fixes,
 * FIX_BEFORE_READ: a Collada file's trimmed copy, an .md5mesh from
 * memory); those are freed after, their size kept in fix->size. Where the
 * file cannot be read so: NULL with fix->unread saying why; other
 * failures leave Assimp's message in aiGetErrorString(). */
static const struct aiScene *read_model_file(fix_context *fix, unsigned flags)
{
    if (rewrite_for_assimp(fix) != SKV_OK) return NULL;
    if (!fix->bytes && assimp_fixes_run(FIX_BEFORE_READ, fix) != SKV_OK) return NULL;
    const struct aiScene *scene = read_scene(fix, flags);
    free(fix->bytes);
    fix->bytes = NULL;
    return scene;
}

/* Ends the read's memory bound; where Assimp ran out of memory while it
 * read (memory_bound, ran_out) the scene it may still have returned is
 * not whole: released, with its durations, and *scene NULL. Returns
 * ran_out. */
static int read_end(memory_bound *bound, const struct aiScene **scene, double **durations)
{
    memory_bound_end(bound);
    if (!bound->ran_out) return 0;
    if (*scene) aiReleaseImport(*scene);
    *scene = NULL;
    if (durations) {
        free(*durations);
        *durations = NULL;
    }
    return 1;
}

/* An .md5mesh's clip: "<base>.md5anim" beside it, by its exact name, or
 * with `any_case` also by one that differs in letter case, the exact name
 * first where both are there. 0 if none, or if its path does not fit
 * `out`. */
int find_md5anim(const char *mesh_path, char *out, size_t size, int any_case)
{
    char *folder = strdup(mesh_path);
    if (!folder) return 0;
    char *slash = strrchr(folder, '/');
    const char *file = slash ? mesh_path + (slash - folder) + 1 : mesh_path;
    if (slash) *slash = '\0';
    size_t base_len = strlen(file) - strlen(".md5mesh");
    DIR *dir = opendir(slash ? (*folder ? folder : "/") : "."); /* a model in / */
    int found = 0; /* 1: a case variant, 2: the exact name */
    for (struct dirent *e; dir && found < 2 && (e = readdir(dir));) {
        if (strlen(e->d_name) == base_len + strlen(".md5anim") && strncasecmp(e->d_name, file, base_len) == 0 &&
            ends_with_nocase(e->d_name, ".md5anim")) {
            int exact = strncmp(e->d_name, file, base_len) == 0 && strcmp(e->d_name + base_len, ".md5anim") == 0;
            if ((found || !any_case) && !exact) continue;
            int n = snprintf(out, size, "%s/%s", slash ? folder : ".", e->d_name);
            found = n > 0 && (size_t)n < size ? 1 + exact : 0;
        }
    }
    if (dir) closedir(dir);
    free(folder);
    return found > 0;
}

/* The .md5anim beside an .md5mesh (fix->path) whose scene has no clip:
 * Assimp's MD5 reader would read "<base>.md5anim" itself, inside the
 * mesh's import (import_once says why it does not); the importer looks
 * for that name, the Assimp fixes where it is not there (FIX_CLIP_FILE),
 * and reads what they found as the mesh was read (import_md5anim_checked,
 * under the same memory bound). NULL with anim_path empty where there is
 * none; NULL with `why` filled where it could not be read. */
static const struct aiScene *md5anim_beside(const struct aiScene *scene, fix_context *fix,
                                            const skv_import_desc *desc, import_mode mode, char *anim_path,
                                            size_t size, skv_error *why)
{
    const char *path = fix->path;
    anim_path[0] = '\0';
    if (scene->mNumAnimations != 0 || !ends_with_nocase(path, ".md5mesh")) return NULL;
    if (!find_md5anim(path, anim_path, size, 0)) anim_path[0] = '\0';
    fix->clip_file = anim_path, fix->clip_file_size = size;
    assimp_fixes_run(FIX_CLIP_FILE, fix); /* finding files: no error */
    if (!anim_path[0]) return NULL;
    memory_bound bound;
    memory_bound_begin(&bound, anim_path, desc);
    const struct aiScene *anim = import_md5anim_checked(anim_path, mode, why);
    if (read_end(&bound, &anim, NULL)) fail_ran_out(why);
    return anim;
}

/* Files this big are read in two steps, looked at before Assimp
 * post-processes them (too_many_bones, FIX_READ_SCENE): on them a step
 * can be quadratic. */
enum { PEEK_FILE_BYTES = 4 << 20 };

/* --- the folder Assimp reads beneath -----------------------------------------
 * A model names the other files it needs (glTF's buffers, OBJ's .mtl, X's
 * and Collada's references) and Assimp opened them wherever they were: a
 * glTF in ~/Downloads whose buffer is "../.ssh/id_rsa" exported that
 * file's bytes as vertices. Assimp's opens (regular_open, below) are
 * confined to beneath the real folder of the file it reads, a link judged
 * by its target; a refused one is noted here, and becomes a warning, or
 * the import's error where Assimp then fails. The guarded child's
 * Landlock says the same (sandbox_reach_of); with --trust, which skips
 * the sandbox and not the rule, this alone does. Imports run one at a
 * time: one reach for the process, handed to regular_open as the
 * aiFileIO's UserData. */
enum { REFUSED_NAMED = 4 };
typedef struct file_reach {
    char folder[PATH_MAX]; /* real; "" before any read: nothing is opened */
    int refused;           /* opens refused since reach_forget */
    char names[REFUSED_NAMED][512]; /* the first ones, as Assimp asked for them */
} file_reach;
static file_reach reach;

static void reach_forget(void)
{
    reach.refused = 0;
}

/* Whether `real` (a resolved path) is `folder` or beneath it. */
static int beneath(const char *real, const char *folder)
{
    size_t n = strlen(folder);
    if (n == 0) return 0;
    if (n == 1 && folder[0] == '/') return real[0] == '/';
    return strncmp(real, folder, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static void reach_refuse(file_reach *r, const char *asked)
{
    for (int i = 0; i < r->refused && i < REFUSED_NAMED; i++)
        if (strncmp(r->names[i], asked, sizeof r->names[i] - 1) == 0) return; /* asked again (Exists, then Open) */
    if (r->refused < REFUSED_NAMED) snprintf(r->names[r->refused], sizeof r->names[0], "%s", asked);
    r->refused++;
}

/* The refused opens as warnings: the model's (`anim_file` NULL), or
 * those of an animation file (its name leads each). */
static void warn_refused(skv_model *model, const char *anim_file)
{
    const char *lead = anim_file ? anim_file : "", *colon = anim_file ? ": " : "";
    const char *whose = anim_file ? "the animation file's" : "the model's";
    for (int i = 0; i < reach.refused && i < REFUSED_NAMED; i++)
        model_warn(model, "%s%s%s was not read: it is outside %s folder", lead, colon, reach.names[i], whose);
    if (reach.refused > REFUSED_NAMED)
        model_warn(model, "%s%s%d more files outside %s folder were not read", lead, colon,
                   reach.refused - REFUSED_NAMED, whose);
}

/* "cannot import: " and Assimp's `message`, led by the first refused
 * open where one was (Assimp's message then says only that it could
 * not open it); `whose` folder: "the model's", "the animation file's". */
static skv_result fail_import_reach(skv_error *err, const char *message, const char *whose)
{
    if (reach.refused == 0) return fail_import(err, message);
    char line[1200];
    snprintf(line, sizeof line, "%s was not read: it is outside %s folder (%s)", reach.names[0], whose, message);
    return fail_import(err, line);
}

/* `path` resolved (links followed) into `real`, or `path` itself where it
 * cannot be: the path every file operation of an import uses, so that a
 * model opened through a link from elsewhere reads beside its real file;
 * the user's path stays in messages and the model. */
static const char *resolved(const char *path, char *real)
{
    return realpath(path, real) ? real : path;
}

/* --- the files Assimp opens ------------------------------------------------
 * Assimp opens files beside the model itself (glTF's .bin, OBJ's .mtl,
 * X's and Collada's references) with a blocking fopen: a FIFO there
 * stalled the import until the guard's timeout (60 s), and with --trust
 * for good. It gets them through these instead: beneath the reach only
 * (above), regular files only, opened without blocking and checked after
 * opening (read_whole_file's rule), read only. (A file handed over from
 * memory, the trimmed Collada, keeps Assimp's own access: its reader
 * opens nothing beside it.) */
#define OPENED(file) ((FILE *)(void *)(file)->UserData)

static size_t opened_read(struct aiFile *file, char *buffer, size_t size, size_t count)
{
    return fread(buffer, size, count, OPENED(file));
}

static size_t opened_write(struct aiFile *file, const char *buffer, size_t size, size_t count)
{
    (void)file, (void)buffer, (void)size, (void)count;
    return 0;
}

static size_t opened_tell(struct aiFile *file)
{
    off_t at = ftello(OPENED(file));
    return at < 0 ? 0 : (size_t)at;
}

static size_t opened_size(struct aiFile *file)
{
    struct stat st;
    return fstat(fileno(OPENED(file)), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
}

static enum aiReturn opened_seek(struct aiFile *file, size_t offset, enum aiOrigin origin)
{
    int whence = origin == aiOrigin_SET ? SEEK_SET : origin == aiOrigin_CUR ? SEEK_CUR : SEEK_END;
    /* A backwards move comes as a wrapped size_t, as Assimp's own stream
     * takes it (a cast to a signed offset). */
    return fseeko(OPENED(file), (off_t)(long long)offset, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}

static void opened_flush(struct aiFile *file)
{
    (void)file;
}

static struct aiFile *regular_open(struct aiFileIO *io, const char *path, const char *mode)
{
    file_reach *r = (file_reach *)(void *)io->UserData;
    if (!path || !mode || strpbrk(mode, "wa+")) return NULL;
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL; /* none there: Assimp says it could not open it */
    if (!beneath(real, r->folder)) {
        reach_refuse(r, path);
        return NULL;
    }
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    struct aiFile *file = f ? malloc(sizeof *file) : NULL;
    if (!file) {
        if (f) fclose(f);
        else close(fd);
        return NULL;
    }
    *file = (struct aiFile){opened_read, opened_write, opened_tell, opened_size, opened_seek, opened_flush,
                            (aiUserData)(void *)f};
    return file;
}

static void regular_close(struct aiFileIO *io, struct aiFile *file)
{
    (void)io;
    if (!file) return;
    fclose(OPENED(file));
    free(file);
}

/* Assimp's MD5 reader would read "<base>.md5anim" itself, inside the
 * mesh's import: a broken one failed the whole import (a sound mesh
 * refused: "MD5: Keyframe index is out of range"), and a FIFO of that name
 * stalled it until the guard's timeout. It is told not to; the importer
 * reads the .md5anim on its own (find_md5anim, import_md5anim_checked),
 * and a broken one leaves the mesh in its rest pose with a warning. */
static const struct aiScene *import_once(const char *path, const unsigned char *bytes, long size, const char *hint,
                                         unsigned flags)
{
    /* Static: Assimp keeps a pointer to it in the importer for the scene's
     * life (read_scene's aiApplyPostProcessing runs after this returns).
     * Const: Assimp's C API takes it without, and never writes it. */
    static const struct aiFileIO regular_files = {regular_open, regular_close, (aiUserData)(void *)&reach};
    struct aiFileIO *io = (struct aiFileIO *)&regular_files;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        return bytes ? aiImportFileFromMemory((const char *)bytes, (unsigned)size, flags, hint)
                     : aiImportFileEx(path, flags, io);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_MD5_NO_ANIM_AUTOLOAD, 1);
    const struct aiScene *scene =
        bytes ? aiImportFileFromMemoryWithProperties((const char *)bytes, (unsigned)size, flags, hint, props)
              : aiImportFileExWithProperties(path, flags, io, props);
    aiReleasePropertyStore(props);
    return scene;
}

/* A big glTF read in one step, not two (read_scene): where its JSON says
 * the scene is a big skinned mesh indexed already (the join would be
 * skipped, assimp_fixes.c), it is read once with that step left out and
 * checked after: the rows of FIX_READ_SCENE must say of it what they
 * would have said of the scene read unprocessed (assimp_fixes_as_peek:
 * its primitives all triangles, Assimp's other steps keep its vertices
 * and faces as read), and its bones must be few enough for
 * too_many_bones. Then it is the scene the two steps read, for one read
 * of the file instead of two (a 1M-vertex mesh: ~0.2 s less). 1 with it
 * in fix->scene; 0 (nothing kept) where it is not so, or the read
 * failed: the two steps then run as before and say why. */
int read_big_gltf_at_once(fix_context *fix, unsigned flags)
{
    const char *path = fix->path;
    fix->scene = NULL;
    sandbox_reach_of(path, reach.folder, sizeof reach.folder); /* as read_scene's */
    if (fix->bytes || !(flags & aiProcess_JoinIdenticalVertices) ||
        !(ends_with_nocase(path, ".gltf") || ends_with_nocase(path, ".glb")))
        return 0;
    size_t json_size = 0;
    unsigned char *json = gltf_read_json(path, &json_size);
    int likely = json && gltf_big_indexed_skin(json, json_size, JOIN_SKINNED_VERTEX_LIMIT, UINT16_MAX);
    free(json);
    if (!likely) return 0;
    unsigned cleared = aiProcess_JoinIdenticalVertices;
    const struct aiScene *scene = import_once(path, NULL, 0, NULL, flags & ~cleared);
    if (!scene) return 0;
    fix->scene = scene;
    if (too_many_bones(scene) || !assimp_fixes_as_peek(fix, cleared)) {
        fix->scene = NULL;
        aiReleaseImport(scene);
        return 0;
    }
    fix->flags = flags & ~cleared, fix->scene_edited = 0;
    return 1;
}

/* Reads fix->path (or fix->bytes, of type fix->hint) the way both the
 * guarded child and the real import do: most files in one call, with
 * `flags`. A big file, or one that fails with an error an Assimp fix
 * answers (assimp_fixes_answer: keys past a clip's duration), is read in
 * two steps: without post-processing, repaired there (FIX_READ_SCENE,
 * which may change the flags or the scene), then validated and processed.
 * fix->durations gets the durations the file gave where a fix extended
 * one (malloc'd, per clip; the caller frees); the conversion warns about
 * those. On failure returns NULL with Assimp's message in
 * aiGetErrorString(). A scene of too many bones comes back as read,
 * unprocessed: convert_scene refuses it first thing. */
const struct aiScene *read_scene(fix_context *fix, unsigned flags)
{
    const char *path = fix->path, *hint = fix->hint;
    const unsigned char *bytes = fix->bytes;
    long size = fix->size;
    fix->durations = NULL;
    sandbox_reach_of(path, reach.folder, sizeof reach.folder); /* what Assimp may open beside it */
    struct stat st;
    long file_size = bytes ? size : stat(path, &st) == 0 ? (long)st.st_size : 0;
    /* Most files: one call, post-processing included. (aiApplyPostProcessing
     * is kept for the files below that need it: when one of its steps
     * fails, Assimp 5.2.5's C API releases a scene its importer has already
     * deleted, and crashes.) */
    if (file_size < PEEK_FILE_BYTES) {
        const struct aiScene *scene = import_once(path, bytes, size, hint, flags);
        if (scene || !assimp_fixes_answer(path, aiGetErrorString())) return scene;
    } else if (read_big_gltf_at_once(fix, flags)) {
        const struct aiScene *scene = fix->scene;
        fix->scene = NULL;
        return scene;
    }
    const struct aiScene *scene = import_once(path, bytes, size, hint, 0);
    if (!scene) return NULL;
    /* The conversion refuses it before looking further (too_many_bones):
     * handed over unprocessed, without Assimp's validation, quadratic in
     * a mesh's bones. */
    if (too_many_bones(scene)) return scene;
    fix->scene = scene, fix->flags = flags, fix->scene_edited = 0;
    assimp_fixes_run(FIX_READ_SCENE, fix); /* repairs in memory: no error */
    fix->scene = NULL;
    if (!fix->scene_edited) {
        /* Nothing changed in the scene: read again in one call, which fails cleanly. */
        aiReleaseImport(scene);
        return import_once(path, bytes, size, hint, fix->flags);
    }
    const struct aiScene *processed = aiApplyPostProcessing(scene, fix->flags);
    if (!processed) {
        free(fix->durations);
        fix->durations = NULL;
    }
    return processed;
}

static skv_result add_clips_in_process(skv_model *model, const char *path, const skv_import_desc *desc,
                                       import_mode mode, int only_without_mesh, int *added, skv_error *err);

/* The guarded child's scenes, not freed (import_in_process); volatile:
 * stored, never read, yet they must stay. */
static const struct aiScene *volatile child_scenes[2];

/* import_model's work, in this process: with --trust, or inside the
 * guarded child (IMPORT_IN_CHILD: the scene must also pass scene_refused). */
static skv_result import_in_process(const char *path, const skv_import_desc *desc, import_mode mode,
                                    guard_channel *channel, skv_model *model, skv_error *err)
{
    memset(model, 0, sizeof *model);
    double started = monotonic_seconds();
    skv_result r = SKV_OK;
    char real[PATH_MAX];
    const char *file = resolved(path, real); /* read; `path` is the user's, for the model and messages */

    /* The Assimp fixes' view of this import, from the file's bytes to the
     * finished model (FIX_MODEL adds the warnings of what they repaired). */
    fix_context fix = {.path = file};
    memory_bound bound;
    memory_bound_begin(&bound, file, desc);
    reach_forget();
    const struct aiScene *scene = read_model_file(&fix, import_flags);
    double *file_durations = fix.durations;
    int ran_out = read_end(&bound, &scene, &file_durations);
    if (ran_out) return fail_ran_out(err);
    if (!scene)
        return fix.unread ? fail_import(err, fix.unread) : fail_import_reach(err, aiGetErrorString(), "the model's");
    /* The size of what Assimp read: a fix's bytes, or the file's. */
    long read_size = fix.hint ? fix.size : -1;
    const char *refused = mode == IMPORT_IN_CHILD ? scene_refused(scene, file, read_size) : NULL;
    if (refused) {
        free(file_durations);
        aiReleaseImport(scene);
        return fail_import(err, refused);
    }

    if (channel) guard_expect(channel, scene_block_estimate(scene, desc && desc->influences > 4 ? desc->influences : 4));
    /* The textures are decoded last, within what is left of the budget
     * and, in the guarded child, well before the parent's timeout: a
     * model whose textures take too long comes back without them. */
    import_budget budget = {.memory_bytes = import_memory_budget(path, desc), .guarded = mode == IMPORT_IN_CHILD};
    if (mode == IMPORT_IN_CHILD)
        budget.deadline = started + 0.8 * (desc && desc->timeout_seconds > 0 ? desc->timeout_seconds : 60.0);

    const struct aiScene *anim_scene = NULL;
    char *anim_refused = NULL; /* why the .md5anim could not be read */
    char anim_path[4096];
    skv_error why = {{0}};
    anim_scene = md5anim_beside(scene, &fix, desc, mode, anim_path, sizeof anim_path, &why);
    if (!anim_scene && anim_path[0]) anim_refused = strdup(why.message);
    /* Textures are found beside the real file; the model keeps the
     * user's path. */
    r = convert_scene(scene, anim_scene && anim_scene->mNumAnimations ? anim_scene : scene,
                      anim_scene && anim_scene->mNumAnimations ? NULL : file_durations, file, desc, &budget, model,
                      err);
    free(file_durations);
    if (r == SKV_OK && file != path) {
        char *given = strdup(path);
        if (given) {
            free(model->path);
            model->path = given;
        } else {
            model_free(model);
            r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        }
    }
    if (r == SKV_OK) warn_refused(model, NULL);
    if (r == SKV_OK && anim_scene && !anim_scene->mNumAnimations)
        model_warn(model, "%s has no usable animation; shown in rest pose", anim_path);
    else if (r == SKV_OK && anim_refused)
        model_warn(model, "%s: %s; shown in rest pose", anim_path, anim_refused);
    free(anim_refused);
    fix.model = model;
    fix.clips_from_clip_file = anim_scene && anim_scene->mNumAnimations;
    if (r == SKV_OK && assimp_fixes_run(FIX_MODEL, &fix) != SKV_OK) {
        model_free(model);
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    /* The guarded child ends once it has sent the model (guard.c): its
     * memory goes with it, and freeing Assimp's scene piece by piece
     * first only delays the parent (~1.5 ms on 2CylinderEngine.glb's
     * 1.8 MB). Kept reachable there, so that a leak checker following
     * the child (memcheck_*) sees memory in use, not lost. */
    if (mode != IMPORT_IN_CHILD) {
        if (anim_scene) aiReleaseImport(anim_scene);
        aiReleaseImport(scene);
    } else {
        child_scenes[0] = scene, child_scenes[1] = anim_scene;
    }
    /* Retargeted clips come after, in the parent (import_model): the
     * file is a model of its own, imported guarded. */
    for (int f = 0; r == SKV_OK && desc && !desc->retarget && f < desc->anim_file_count; f++) {
        int added = 0;
        r = add_clips_in_process(model, desc->anim_files[f], desc, mode, 0, &added, err);
        if (r != SKV_OK) model_free(model);
    }
    return r;
}

/* import_add_clips' work, in this process (see import_in_process). */
static skv_result add_clips_in_process(skv_model *model, const char *path, const skv_import_desc *desc,
                                       import_mode mode, int only_without_mesh, int *added, skv_error *err)
{
    *added = 0;
    const char *file = base_name(path);
    skv_error why = {{0}};
    skv_result r = check_path(path, &why);
    if (r != SKV_OK) return skv_fail(err, r, "animation file %s: %s", path, why.message);
    char real[PATH_MAX];
    const char *read_path = resolved(path, real); /* as import_in_process's `file` */
    fix_context fix = {.path = read_path, .clips_only = 1};
    memory_bound bound;
    memory_bound_begin(&bound, read_path, desc);
    /* An .md5anim is read as the model's own is (import_md5anim_checked:
     * the Assimp fixes hand it over from memory, since Assimp's MD5 reader
     * opens the file a second time by its base name and a lower-case
     * extension, which is another file or none where the name's case
     * differs: Walk.Md5Anim). */
    int md5anim_file = ends_with_nocase(path, ".md5anim");
    reach_forget();
    const struct aiScene *scene =
        md5anim_file ? import_md5anim_checked(read_path, mode, &why) : read_model_file(&fix, import_flags);
    double *file_durations = fix.durations;
    if (read_end(&bound, &scene, &file_durations)) {
        fail_ran_out(&why);
        return skv_fail(err, SKV_ERR_IMPORT, "animation file %s: %s", path, why.message);
    }
    if (!scene && md5anim_file) return skv_fail(err, SKV_ERR_IMPORT, "animation file %s: %s", path, why.message);
    if (!scene) {
        if (fix.unread) fail_import(&why, fix.unread);
        else fail_import_reach(&why, aiGetErrorString(), "the animation file's");
        return skv_fail(err, SKV_ERR_IMPORT, "animation file %s: %s", path, why.message);
    }
    /* (import_md5anim_checked has looked already.) */
    const char *refused = mode == IMPORT_IN_CHILD && !md5anim_file ? scene_refused(scene, read_path, -1) : NULL;
    if (refused) {
        free(file_durations);
        aiReleaseImport(scene);
        fail_import(&why, refused);
        return skv_fail(err, SKV_ERR_IMPORT, "animation file %s: %s", path, why.message);
    }
    if (only_without_mesh && has_own_meshes(scene)) {
        free(file_durations);
        aiReleaseImport(scene);
        *added = -1;
        return SKV_OK;
    }
    /* An .md5mesh's clips are in its .md5anim, read as the model's are
     * (import_in_process). */
    char anim_path[4096];
    const struct aiScene *md5anim = md5anim_beside(scene, &fix, desc, mode, anim_path, sizeof anim_path, &why);
    if (!md5anim && anim_path[0]) {
        free(file_durations);
        aiReleaseImport(scene);
        return skv_fail(err, SKV_ERR_ANIM, "animation file %s: %s: %s", path, anim_path, why.message);
    }
    const struct aiScene *anim_scene = md5anim ? md5anim : scene;
    if (anim_scene->mNumAnimations == 0 || !scene->mRootNode) {
        free(file_durations);
        if (anim_scene != scene) aiReleaseImport(anim_scene);
        aiReleaseImport(scene);
        return skv_fail(err, SKV_ERR_ANIM, "animation file %s: no clips in it", path);
    }

    /* The clips are converted against the model's skeleton into a scratch
     * model that shares it (folding pivots changes the model's own rest
     * pose), then moved over. */
    skv_model scratch;
    r = bind_clips(model, scene, anim_scene, anim_scene == scene ? file_durations : NULL, read_path, &scratch, err);
    model->skeleton = scratch.skeleton; /* the same arrays; only fold_fbx_pivots wrote to them */
    /* From here the model changes: its rest pose and parents (folded
     * pivots, failed or not) and its clips (moved by realloc), as after
     * adopt_added_clips (the guarded path's). */
    int usable = 0;
    for (int c = 0; c < scratch.clip_count; c++) usable += scratch.clips[c].channel_count > 0;
    skv_clip *grown = r == SKV_OK && usable ? realloc(model->clips, (size_t)(model->clip_count + usable) * sizeof *grown)
                                            : NULL;
    if (grown) model->clips = grown;
    else if (r == SKV_OK && usable) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (int w = 0; w < scratch.warning_count; w++) model_warn(model, "%s: %s", file, scratch.warnings[w]);
    warn_refused(model, file);
    for (int c = 0; c < scratch.clip_count; c++) {
        skv_clip *clip = &scratch.clips[c];
        if (r == SKV_OK && clip->channel_count > 0 && (clip->source = strdup(path))) {
            model->clips[model->clip_count++] = *clip;
            (*added)++;
            continue;
        }
        if (r == SKV_OK && clip->channel_count == 0)
            model_warn(model, "%s: clip '%s': none of its %d channels names a node of the model; left out", file,
                       clip->name, clip->file_channels);
        model_clip_free(clip);
    }
    free(scratch.clips);
    for (int w = 0; w < scratch.warning_count; w++) free(scratch.warnings[w]);
    free(scratch.warnings);
    free(file_durations);
    if (anim_scene != scene) aiReleaseImport(anim_scene);
    aiReleaseImport(scene);
    if (r == SKV_OK && *added == 0)
        r = skv_fail(err, SKV_ERR_ANIM, "animation file %s: none of its %d clip(s) moves a node of the model", path,
                     scratch.clip_count);
    return r;
}

/* --- entry points ----------------------------------------------------------- */

typedef struct model_job {
    const char *path;
    const skv_import_desc *desc;
} model_job;

static skv_result model_in_child(void *arg, guard_channel *channel, skv_model *model, int64_t *extra, skv_error *err)
{
    const model_job *job = arg;
    *extra = 0;
    return import_in_process(job->path, job->desc, IMPORT_IN_CHILD, channel, model, err);
}

skv_result import_model(const char *path, const skv_import_desc *desc, skv_model *model, skv_error *err)
{
    memset(model, 0, sizeof *model);
    double started = monotonic_seconds();
    skv_result r = check_path(path, err);
    if (r != SKV_OK) return r;
    if (desc && desc->trusted) {
        r = import_in_process(path, desc, IMPORT_TRUSTED, NULL, model, err);
    } else {
        model_job job = {path, desc};
        int64_t extra = 0;
        r = guarded_import(path, desc, model_in_child, &job, 0, model, &extra, err);
        if (r != SKV_OK) return r;
        /* Images the child's sandbox could not reach, in a sandbox of their
         * own, within what is left of the import's time. */
        double timeout = desc && desc->timeout_seconds > 0 ? desc->timeout_seconds : 60.0;
        r = outside_textures_decode(path, desc, timeout - (monotonic_seconds() - started), model, err);
    }
    if (r == SKV_OK && desc && desc->bone_map) r = import_bone_map_check(model, desc->bone_map, err);
    for (int f = 0; r == SKV_OK && desc && desc->retarget && f < desc->anim_file_count; f++) {
        int added = 0;
        r = import_retarget_clips(model, desc->anim_files[f], desc, 0, &added, err);
    }
    if (r != SKV_OK) model_free(model);
    return r;
}

typedef struct clips_job {
    skv_model *model; /* the child's copy */
    const char *path;
    const skv_import_desc *desc;
    int only_without_mesh;
} clips_job;

/* A model's textures as a clip job hands them back: sizes only, no
 * texels or file bytes (the parent keeps its own). */
static void strip_textures(skv_texture *textures, int count)
{
    for (int t = 0; t < count; t++) textures[t] = (skv_texture){0};
}

/* The size of the block a clip job hands back before its new clips:
 * the model less its textures' bytes (clips_in_child); 0 if it cannot be
 * measured (memory: the budget alone then bounds the block). */
static uint64_t clip_job_carried(const skv_model *model)
{
    skv_model bare = *model;
    bare.textures = model->texture_count > 0 ? malloc((size_t)model->texture_count * sizeof *bare.textures) : NULL;
    if (model->texture_count > 0 && !bare.textures) return 0;
    if (bare.textures) memcpy(bare.textures, model->textures, (size_t)model->texture_count * sizeof *bare.textures);
    strip_textures(bare.textures, bare.texture_count);
    uint64_t size = blob_size(&bare);
    free(bare.textures);
    return size;
}

/* In the child: adds the clips to its copy of the model and hands that
 * back whole, less its textures (the parent keeps its own). */
static skv_result clips_in_child(void *arg, guard_channel *channel, skv_model *out, int64_t *extra, skv_error *err)
{
    const clips_job *job = arg;
    (void)channel; /* a clip file's block is mostly the model it was given: nothing to tell early */
    int added = 0;
    skv_result r = add_clips_in_process(job->model, job->path, job->desc, IMPORT_IN_CHILD, job->only_without_mesh,
                                        &added, err);
    *extra = added;
    if (r != SKV_OK) return r;
    *out = *job->model;
    strip_textures(out->textures, out->texture_count);
    return SKV_OK;
}

/* Takes what the child added to its copy of `model` (`grown`, checked by
 * blob_read) into `model`: the new clips and warnings, and the rest pose
 * and parents (folding FBX pivots for the new clips changes them).
 * `grown` is freed. */
static skv_result adopt_added_clips(skv_model *model, skv_model *grown, skv_error *err)
{
    const skv_skeleton *sk = &model->skeleton;
    if (grown->skeleton.node_count != sk->node_count || grown->skeleton.bone_count != sk->bone_count ||
        grown->clip_count < model->clip_count || grown->warning_count < model->warning_count) {
        model_free(grown);
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's clips do not fit the model");
    }
    int fresh = grown->clip_count - model->clip_count;
    skv_clip *clips = fresh ? realloc(model->clips, (size_t)grown->clip_count * sizeof *clips) : model->clips;
    if (fresh && !clips) {
        model_free(grown);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    model->clips = clips;
    /* Their keys may lie in `grown`'s block, which goes with it. */
    for (int c = model->clip_count; c < grown->clip_count; c++) {
        if (model_clip_own(grown, &grown->clips[c]) != SKV_OK) {
            model_free(grown);
            return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        }
    }
    for (int c = model->clip_count; c < grown->clip_count; c++) {
        model->clips[c] = grown->clips[c];
        memset(&grown->clips[c], 0, sizeof grown->clips[c]);
    }
    model->clip_count = grown->clip_count;
    /* Folding the new file's FBX pivots (fold_fbx_pivots) rewrites a
     * node's rest transform and its parent: both come over. */
    memcpy(model->skeleton.rest_local, grown->skeleton.rest_local, (size_t)sk->node_count * sizeof(mat4));
    memcpy(model->skeleton.parents, grown->skeleton.parents, (size_t)sk->node_count * sizeof(int));
    for (int w = model->warning_count; w < grown->warning_count; w++) model_warn(model, "%s", grown->warnings[w]);
    model_free(grown);
    return SKV_OK;
}

skv_result import_add_clips(skv_model *model, const char *path, const skv_import_desc *desc, int only_without_mesh,
                            int *added, skv_error *err)
{
    *added = 0;
    if (desc && desc->retarget) return import_retarget_clips(model, path, desc, only_without_mesh, added, err);
    if (desc && desc->trusted)
        return add_clips_in_process(model, path, desc, IMPORT_TRUSTED, only_without_mesh, added, err);
    skv_error why = {{0}};
    skv_result r = check_path(path, &why);
    if (r != SKV_OK) return skv_fail(err, r, "animation file %s: %s", path, why.message);
    clips_job job = {model, path, desc, only_without_mesh};
    skv_model grown;
    int64_t extra = 0;
    /* The child's block is the whole model with the new clips: the
     * model's own bytes (as the child hands them back: no texels) come
     * on top of the file's budget, which then bounds what it adds. */
    r = guarded_import(path, desc, clips_in_child, &job, clip_job_carried(model), &grown, &extra, err);
    if (r != SKV_OK) return r;
    if (extra < 0) { /* a file with meshes, left alone (only_without_mesh) */
        model_free(&grown);
        *added = -1;
        return SKV_OK;
    }
    r = adopt_added_clips(model, &grown, err);
    if (r == SKV_OK) *added = (int)(extra > INT_MAX ? INT_MAX : extra);
    return r;
}
