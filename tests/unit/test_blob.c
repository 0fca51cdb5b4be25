/* test_blob.c - the model block the guarded child hands back (blob.h):
 * a model read in this process (--trust) survives the round trip exactly
 * (same block when written again, same palettes at the same times), each
 * defect blob_read must catch is caught (a cycle in the nodes, an index
 * past its vertices, NaN, a wrong count, a truncated or foreign block),
 * and thousands of blocks with bytes overwritten are refused or read into
 * a model that passes blob_check and poses without a fault (run it under
 * the sanitizer build to see one). Each block is read both ways: copied
 * (blob_read) and adopted in place from a private mapping (blob_adopt,
 * as the guarded import does), with the same verdict.
 *
 * Also (--estimate) the size the child announces before converting
 * against the block it writes (test_estimate), and (--limit) the limit
 * on the block the child hands back (test_limit).
 *
 * Usage: test_blob MODEL... (each model imported trusted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "anim.h"
#include "blob.h"
#include "check.h"
#include "import.h"
#include "import_internal.h"

#include <assimp/cimport.h>

/* Palettes of every clip at a few times, and of the rest pose. */
static int same_poses(const skv_model *a, const skv_model *b)
{
    skv_pose pa, pb;
    if (pose_create(&pa, &a->skeleton) != 0) return 0;
    if (pose_create(&pb, &b->skeleton) != 0) {
        pose_destroy(&pa);
        return 0;
    }
    int same = 1;
    for (int c = -1; c < a->clip_count && same; c++)
        for (int step = 0; step < 5 && same; step++) {
            double t = 0.37 * step;
            pose_evaluate(&pa, a, c, t);
            pose_evaluate(&pb, b, c, t);
            same = memcmp(pa.palette, pb.palette, (size_t)a->skeleton.bone_count * sizeof(mat4)) == 0;
        }
    pose_destroy(&pa);
    pose_destroy(&pb);
    return same;
}

/* blob_adopt on a private mapping holding a copy of `bytes`, as the
 * guarded import maps the child's memfd; on failure the mapping is
 * unmapped here (the model owns it otherwise). */
static skv_result adopt_copy(const unsigned char *bytes, size_t size, skv_model *model, int64_t *extra,
                             skv_error *err)
{
    void *mapped = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return SKV_ERR_MEMORY;
    memcpy(mapped, bytes, size);
    skv_result r = blob_adopt(mapped, size, model, extra, err);
    if (r != SKV_OK) munmap(mapped, size ? size : 1);
    return r;
}

/* Does `p` lie in the model's adopted block? */
static int in_block(const skv_model *m, const void *p)
{
    return m->block && (uintptr_t)p >= (uintptr_t)m->block && (uintptr_t)p - (uintptr_t)m->block < m->block_size;
}

static unsigned char *write_model(const skv_model *model, size_t *size)
{
    unsigned char *bytes = NULL;
    skv_error err = {{0}};
    if (blob_write(model, 7, &bytes, size, &err) != SKV_OK) return NULL;
    return bytes;
}

/* Writes `model` after `spoil` changed it, reads it back: must be refused. */
static int refused_after(skv_model *model, void (*spoil)(skv_model *, int undo), const char *what)
{
    spoil(model, 0);
    size_t size = 0;
    unsigned char *bytes = write_model(model, &size);
    spoil(model, 1);
    if (!bytes) return 0;
    skv_model back;
    skv_error err = {{0}};
    skv_result r = blob_read(bytes, size, &back, NULL, &err);
    skv_error adopt_err = {{0}};
    skv_result adopted = adopt_copy(bytes, size, &back, NULL, &adopt_err);
    free(bytes);
    if (r == SKV_OK || adopted == SKV_OK) {
        fprintf(stderr, "not refused: %s\n", what);
        if (adopted == SKV_OK) model_free(&back);
        return 0;
    }
    return strstr(err.message, "malformed") != NULL && strcmp(err.message, adopt_err.message) == 0;
}

static int saved_int;
static float saved_float;

static void parent_cycle(skv_model *m, int undo)
{
    if (m->skeleton.node_count < 2) return;
    if (!undo) saved_int = m->skeleton.parents[1], m->skeleton.parents[1] = 1;
    else m->skeleton.parents[1] = saved_int;
}

static void index_past_vertices(skv_model *m, int undo)
{
    if (!undo) saved_int = (int)m->indices[0], m->indices[0] = (uint32_t)m->meshes[0].vertex_count;
    else m->indices[0] = (uint32_t)saved_int;
}

static void nan_position(skv_model *m, int undo)
{
    if (!undo) saved_float = m->positions[1], m->positions[1] = NAN;
    else m->positions[1] = saved_float;
}

static void huge_bone_id(skv_model *m, int undo)
{
    if (!undo) saved_int = m->bone_ids[0], m->bone_ids[0] = (uint16_t)m->skeleton.bone_count;
    else m->bone_ids[0] = (uint16_t)saved_int;
}

/* Vertex 0's influence list empty (its pairs given to vertex 1). */
static void empty_influence_list(skv_model *m, int undo)
{
    if (!undo) saved_int = m->influence_start[1], m->influence_start[1] = m->influence_start[0];
    else m->influence_start[1] = saved_int;
}

static void mesh_past_vertices(skv_model *m, int undo)
{
    if (!undo) saved_int = m->meshes[0].vertex_count, m->meshes[0].vertex_count = m->vertex_count + 1;
    else m->meshes[0].vertex_count = saved_int;
}

static void channel_node_out(skv_model *m, int undo)
{
    if (!m->clip_count || !m->clips[0].channel_count) return;
    int *node = &m->clips[0].channels[0].node;
    if (!undo) saved_int = *node, *node = m->skeleton.node_count;
    else *node = saved_int;
}

static void inf_key_time(skv_model *m, int undo)
{
    if (!m->clip_count || !m->clips[0].channel_count) return;
    double *t = &m->clips[0].channels[0].positions[0].time;
    static double saved;
    if (!undo) saved = *t, *t = INFINITY;
    else *t = saved;
}

/* `path` imported trusted into `model`: 1, or 0 (a failed check). */
static int import_trusted(const char *path, skv_model *model)
{
    skv_error err = {{0}};
    skv_result r = import_model(path, &(skv_import_desc){.trusted = 1}, model, &err);
    CHECK(r == SKV_OK);
    if (r != SKV_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    return r == SKV_OK;
}

static void test_model(const char *path)
{
    skv_model model;
    skv_error err = {{0}};
    if (!import_trusted(path, &model)) return;
    skv_result r;

    /* Round trip: the same block again, the same poses, `extra` kept. */
    size_t size = 0;
    unsigned char *bytes = write_model(&model, &size);
    CHECK(bytes != NULL);
    if (!bytes) {
        model_free(&model);
        return;
    }
    skv_model back;
    int64_t extra = 0;
    r = blob_read(bytes, size, &back, &extra, &err);
    CHECK(r == SKV_OK);
    if (r != SKV_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    if (r == SKV_OK) {
        CHECK(extra == 7);
        size_t again_size = 0;
        unsigned char *again = write_model(&back, &again_size);
        CHECK(again && again_size == size && memcmp(again, bytes, size) == 0);
        free(again);
        CHECK(back.vertex_count == model.vertex_count && back.clip_count == model.clip_count);
        CHECK(back.rest_walk == NULL && atomic_load(&back.rest_walk_ready) == 0); /* not sent: compiled on first use */
        /* Written to a descriptor as it is made: the same bytes. */
        FILE *file = tmpfile();
        int error = -1;
        CHECK(file && blob_write_fd(&model, 7, fileno(file), &error, &err) == SKV_OK && error == 0);
        if (file) {
            unsigned char *streamed = malloc(size + 1);
            rewind(file);
            CHECK(streamed && fread(streamed, 1, size + 1, file) == size && memcmp(streamed, bytes, size) == 0);
            free(streamed);
            fclose(file);
        }
        CHECK(same_poses(&model, &back));
        model_free(&back);
    }
    /* Adopted in place: the same model, its big vertex arrays in the
     * block (and freed with it), the rest copied. */
    r = adopt_copy(bytes, size, &back, &extra, &err);
    CHECK(r == SKV_OK);
    if (r == SKV_OK) {
        CHECK(extra == 7 && back.block && back.block_size == size);
        size_t again_size = 0;
        unsigned char *again = write_model(&back, &again_size);
        CHECK(again && again_size == size && memcmp(again, bytes, size) == 0);
        free(again);
        CHECK(in_block(&back, back.positions) == ((size_t)back.vertex_count * 3 * sizeof(float) >= 4096));
        CHECK(!in_block(&back, back.meshes) && !in_block(&back, back.skeleton.parents));
        CHECK(same_poses(&model, &back));
        model_free(&back);
    }

    /* Each defect the reader must catch. */
    if (model.skeleton.node_count >= 2) CHECK(refused_after(&model, parent_cycle, "parent cycle"));
    if (model.index_count > 0) CHECK(refused_after(&model, index_past_vertices, "index past its mesh"));
    if (model.vertex_count > 0) CHECK(refused_after(&model, nan_position, "NaN position"));
    if (model.vertex_count > 0) CHECK(refused_after(&model, huge_bone_id, "bone index past the palette"));
    if (model.vertex_count > 0) CHECK(refused_after(&model, empty_influence_list, "a vertex without influences"));
    if (model.mesh_count > 0) CHECK(refused_after(&model, mesh_past_vertices, "mesh past the vertices"));
    if (model.clip_count && model.clips[0].channel_count) {
        CHECK(refused_after(&model, channel_node_out, "channel node out of range"));
        CHECK(refused_after(&model, inf_key_time, "infinite key time"));
    }

    /* A foreign, truncated or padded block. */
    unsigned char *spoilt = malloc(size + 8);
    memcpy(spoilt, bytes, size);
    spoilt[0] ^= 1;
    CHECK(blob_read(spoilt, size, &back, NULL, &err) == SKV_ERR_IMPORT);
    spoilt[0] ^= 1;
    CHECK(blob_read(spoilt, size - 8, &back, NULL, &err) == SKV_ERR_IMPORT);
    memset(spoilt + size, 0, 8);
    CHECK(blob_read(spoilt, size + 8, &back, NULL, &err) == SKV_ERR_IMPORT);

    /* Overwritten bytes: refused, or a model that passes the checks and
     * poses. Positions spread over the whole block, values that hit
     * counts, offsets, indices and floats. */
    const uint64_t values[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x7fc00000u /* NaN */,
                               0xffffffffffffffffull, 0x100000000ull, 24};
    const int value_count = (int)(sizeof values / sizeof values[0]);
    int runs = 0, read_ok = 0, posed = 1, same_verdict = 1, adoptions = 0;
    size_t stride = size / 400 > 8 ? (size / 400) & ~(size_t)3 : 4;
    for (size_t at = 0; at + 8 <= size; at += stride) {
        for (int v = 0; v < value_count; v++) {
            memcpy(spoilt, bytes, size);
            memcpy(spoilt + at, &values[v], v == 6 || v == 7 ? 8 : 4);
            skv_model m;
            runs++;
            skv_result copied = blob_read(spoilt, size, &m, NULL, &err);
            if (runs % 3 == 0) { /* a mapping per copy is slow: every third */
                skv_model adopted_model;
                skv_error adopt_err;
                skv_result adopted = adopt_copy(spoilt, size, &adopted_model, NULL, &adopt_err);
                same_verdict &= copied == adopted;
                adoptions++;
                if (adopted == SKV_OK) model_free(&adopted_model);
            }
            if (copied != SKV_OK) continue;
            read_ok++;
            skv_error check_err;
            posed &= blob_check(&m, &check_err) == SKV_OK;
            skv_pose pose;
            if (pose_create(&pose, &m.skeleton) == 0) {
                for (int c = -1; c < m.clip_count; c++) pose_evaluate(&pose, &m, c, 0.5);
                pose_destroy(&pose);
            }
            model_free(&m);
        }
    }
    CHECK(posed);
    CHECK(same_verdict && adoptions > runs / 4);
    CHECK(runs > 1000 || size < 4000);
    printf("%s: block of %zu bytes, %d overwritten copies, %d refused, %d read and posed\n", path, size, runs,
           runs - read_ok, read_ok);
    free(spoilt);
    free(bytes);
    model_free(&model);
}

/* The size the guarded child announces once it has read the scene
 * (guard_expect), against the block it then writes: the parent sets that
 * much memory aside, so it must not be much more than the block (memory
 * taken for nothing), and on a big model not much less (the point is
 * that the block's write finds its pages ready). */
static void test_estimate(const char *path)
{
    skv_model model;
    if (!import_trusted(path, &model)) return;
    size_t size = 0;
    unsigned char *bytes = write_model(&model, &size);
    const struct aiScene *scene = read_scene(path, NULL, 0, NULL, import_read_flags(), NULL);
    CHECK(bytes != NULL && scene != NULL);
    if (bytes && scene) {
        uint64_t guess = scene_block_estimate(scene, model.influence_slots);
        printf("%s: block %zu bytes, estimated %llu (%.3f)\n", path, size, (unsigned long long)guess,
               (double)guess / (double)size);
        CHECK(guess <= size + size / 8);
        if (size >= (1u << 20)) CHECK(guess >= size - size / 4);
    }
    if (scene) aiReleaseImport(scene);
    free(bytes);
    model_free(&model);
}

/* The guarded child's work for test_limit: hands back the model it
 * inherited (as a clip job hands back the host's, with its new clips). */
static skv_result hand_back(void *arg, guard_channel *channel, skv_model *out, int64_t *extra, skv_error *err)
{
    (void)channel, (void)err;
    *out = *(const skv_model *)arg;
    for (int t = 0; t < out->texture_count; t++) out->textures[t] = (skv_texture){0};
    *extra = 0;
    return SKV_OK;
}

/* The block's limit (guarded_import): the file's budget, plus what the
 * block carries that is not the file's. A block past it is refused, by
 * the memfd's size limit and then on the pipe, which had read up to its
 * buffer's doubled capacity: a 3 MB block passed a 2 MB limit. Within
 * it, the model comes back whole. */
static void test_limit(const char *path)
{
    skv_model model;
    if (!import_trusted(path, &model)) return;
    /* Its clips twice (01_03.bvh: 6 MB): the budget below is then not a
     * power of two, which the pipe's buffer grows by (5 MB, read to 8). */
    int added = 0;
    skv_error add_err = {{0}};
    CHECK(import_add_clips(&model, path, &(skv_import_desc){.trusted = 1}, 0, &added, &add_err) == SKV_OK);
    uint64_t size = blob_size(&model);
    int mb = (int)(size >> 20); /* the block is past it, by less than twice */
    while (mb > 2 && (mb & (mb - 1)) == 0) mb--;
    CHECK(size > 0 && mb >= 3);
    if (mb < 1) mb = 1;
    skv_import_desc desc = {.memory_limit_mb = mb};
    for (int carried = 0; carried < 2; carried++) {
        skv_model back;
        int64_t extra = 0;
        skv_error err = {{0}};
        skv_result r = guarded_import(path, &desc, hand_back, &model, carried ? size : 0, &back, &extra, &err);
        printf("%s: a %llu-byte block, %d MB budget%s: %s\n", path, (unsigned long long)size, mb,
               carried ? " + the block carried" : "", r == SKV_OK ? "handed back" : err.message);
        if (carried) {
            CHECK(r == SKV_OK);
            if (r == SKV_OK) {
                CHECK(blob_size(&back) == size && same_poses(&model, &back));
                model_free(&back);
            }
        } else {
            CHECK(r == SKV_ERR_IMPORT && strstr(err.message, "larger than its memory budget"));
            if (r == SKV_OK) model_free(&back);
        }
    }
    /* A block of exactly the limit is handed back, through the pipe too
     * (where ulimit -f stops the memfd: the pipe had refused it, wanting
     * room for one byte more before it read the block's end). */
    for (int pipe_only = 0; pipe_only < 2; pipe_only++) {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            if (pipe_only) {
                struct rlimit small = {1 << 16, 1 << 16};
                signal(SIGXFSZ, SIG_IGN);
                if (setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(2);
            }
            skv_import_desc exact = {.memory_limit_mb = 1};
            skv_model back;
            int64_t extra = 0;
            skv_error err = {{0}};
            skv_result r = guarded_import(path, &exact, hand_back, &model, size - (1u << 20), &back, &extra, &err);
            if (r != SKV_OK) fprintf(stderr, "%s\n", err.message);
            _exit(r == SKV_OK && blob_size(&back) == size ? 0 : 1);
        }
        int status = -1;
        CHECK(child > 0 && waitpid(child, &status, 0) == child);
        printf("%s: a block of exactly its limit%s: %s\n", path, pipe_only ? ", through the pipe" : "",
               WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "handed back" : "refused");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    model_free(&model);
}

/* Usage: test_blob MODEL... | test_blob --estimate MODEL... | test_blob --limit MODEL... */
int main(int argc, char **argv)
{
    int estimate = argc > 1 && strcmp(argv[1], "--estimate") == 0;
    int limit = argc > 1 && strcmp(argv[1], "--limit") == 0;
    for (int i = 1 + estimate + limit; i < argc; i++)
        (estimate ? test_estimate : limit ? test_limit : test_model)(argv[i]);
    return check_summary();
}
