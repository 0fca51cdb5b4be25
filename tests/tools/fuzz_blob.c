/* fuzz_blob.c - libFuzzer target: arbitrary bytes as the model block a
 * guarded child hands its parent (src/import/blob.c), and, where the
 * parent accepts one, everything the parent then does with the model.
 *
 * The guarded import's child is assumed compromised (issue #48): the
 * block is all it can send, so a block that blob_read or blob_adopt
 * accepts must be safe for every consumer in the parent. Each input is
 * read both ways (copied, and adopted from a private mapping as
 * guard.c does), which must agree; an accepted model is then drawn into
 * draws (split small, so the split runs), listed (--list, text and
 * JSON), posed through the pose evaluator (each clip and the rest pose,
 * a few times, the reference evaluator and a blend too), skinned on the
 * CPU (linear, every influence, dual quaternions, with its morph
 * weights), framed, and exported as OBJ to /dev/null. Any crash,
 * sanitizer report or leak is a check blob_check lacks.
 *
 * The block's size field is set to the input's size (bytes 16..23), so
 * that inserted and erased bytes reach the offsets' and counts' checks
 * instead of the header's. Seeds: real blocks (fuzz_blob_seeds).
 *
 * An input that starts with 'E' is an edit script instead: its next
 * byte picks a base model (the blocks named in SKV_FUZZ_BLOB_BASES,
 * colon-separated), then each 8 bytes set one value of it (a count,
 * range or index of its meshes, skeleton, influences, materials or
 * clips, set or stepped by -8..7; a float or a key time), and the model
 * edited is written as a block and read as above. Raw bytes seldom change the few fields that
 * must change together for a model-level defect (a mesh's index count,
 * the model's and the index record's); an edit changes the model and the
 * writer keeps its records consistent. Counts that size an array the
 * writer reads are only lowered, and every edit is undone before the
 * model is freed. Built by -DSKINVIEW_FUZZ=ON with clang;
 * tests/tools/fuzz_blob.sh runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "anim.h"
#include "blob.h"
#include "camera.h"
#include "draws.h"
#include "morph.h"
#include "output.h"
#include "report.h"
#include "skin.h"

static FILE *null_out;

static void pose_and_skin(const skv_model *model)
{
    skv_pose pose;
    skv_walks *walks;
    if (walks_create(&walks, model) != SKV_OK) return;
    if (pose_create(&pose, &model->skeleton) != SKV_OK) {
        walks_destroy(walks);
        return;
    }
    size_t n = (size_t)model->vertex_count, bones = (size_t)model->skeleton.bone_count;
    float *positions = malloc(n * 3 * sizeof(float) + 1), *normals = malloc(n * 3 * sizeof(float) + 1);
    float *weights = malloc((size_t)model->morph_target_count * sizeof(float) + 1);
    skv_dq_bone *dq = malloc((bones ? bones : 1) * sizeof *dq);
    const double times[] = {0.0, 0.37, 1.5};
    int clips = model->clip_count < 3 ? model->clip_count : 3;
    for (int clip = -1; clip < clips && positions && normals && weights && dq; clip++)
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            if (t == 2) pose_evaluate_reference(&pose, model, clip, times[t]);
            else pose_evaluate(&pose, walks, clip, times[t]);
            morph_weights(model, clip, times[t], weights);
            skin_blend_morph(model, pose.palette, weights, positions, normals);
            skin_blend_all_morph(model, pose.palette, weights, positions);
            skin_dq_palette(pose.palette, (int)bones, dq);
            skin_blend_dq_morph(model, dq, weights, positions, normals);
            if (t == 1) {
                skv_error err;
                if (model->skeleton_only)
                    output_write_skeleton_obj("/dev/null", model, pose_globals(&pose), model->upright, NULL, &err);
                else
                    output_write_obj("/dev/null", model, positions, normals, model->upright, &err);
            }
        }
    if (model->clip_count > 0) pose_evaluate_blend(&pose, model, 0, 0.2, model->clip_count - 1, 0.7, 0.5f);
    float lo[3], hi[3];
    camera_animated_bounds(walks, model->clip_count > 0 ? 0 : -1, 0.0, 2, camera_root_motion_node(model, 0), lo, hi);
    free(positions), free(normals), free(weights), free(dq);
    pose_destroy(&pose);
    walks_destroy(walks);
}

static void exercise(const skv_model *model)
{
    skv_error err;
    skv_draw_set set;
    if (draws_build(model, 12, &set, &err) == SKV_OK) draws_free(&set);
    if (draws_build(model, SKV_MAX_BONES, &set, &err) == SKV_OK) draws_free(&set);
    draws_check_lists(model, 12, &err);
    report_list(null_out, model);
    report_list_json(null_out, model);
    pose_and_skin(model);
}

/* --- edit scripts ------------------------------------------------------------ */

enum { MAX_BASES = 8, MAX_EDITS = 64 };
static unsigned char *bases[MAX_BASES];
static size_t base_sizes[MAX_BASES];
static int base_count;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *list = getenv("SKV_FUZZ_BLOB_BASES");
    char path[4096];
    while (list && *list && base_count < MAX_BASES) {
        size_t n = strcspn(list, ":");
        snprintf(path, sizeof path, "%.*s", (int)n, list);
        list += n + (list[n] == ':');
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long length = ftell(f);
        rewind(f);
        unsigned char *bytes = length > 0 ? malloc((size_t)length) : NULL;
        if (bytes && fread(bytes, 1, (size_t)length, f) == (size_t)length) {
            bases[base_count] = bytes, base_sizes[base_count++] = (size_t)length;
        } else {
            free(bytes);
        }
        fclose(f);
    }
    return 0;
}

/* A value an edit may set: where, how wide, and how. */
typedef enum edit_kind { EDIT_INT, EDIT_SHRINK, EDIT_U16, EDIT_FLOAT, EDIT_DOUBLE } edit_kind;
typedef struct edit_target {
    void *at;
    edit_kind kind;
} edit_target;

/* Edit `which` of model `m` at element `i`; at NULL where the model has
 * no such element. Counts that size what the writer reads: EDIT_SHRINK. */
static edit_target edit_at(skv_model *m, unsigned which, unsigned i)
{
    skv_skeleton *sk = &m->skeleton;
    skv_mesh *mesh = m->mesh_count ? &m->meshes[i % (unsigned)m->mesh_count] : NULL;
    skv_material *mat = &m->materials[i % (unsigned)m->material_count];
    skv_clip *clip = m->clip_count ? &m->clips[i % (unsigned)m->clip_count] : NULL;
    skv_channel *ch = clip && clip->channel_count ? &clip->channels[(i >> 4) % (unsigned)clip->channel_count] : NULL;
    skv_morph_channel *mc =
        clip && clip->morph_channel_count ? &clip->morph_channels[(i >> 4) % (unsigned)clip->morph_channel_count] : NULL;
    int influences = m->vertex_count ? m->influence_start[m->vertex_count] : 0;
    edit_target none = {NULL, EDIT_INT};
#define AT(p, k) ((edit_target){(void *)(p), k})
    switch (which % 46) {
    case 0: return AT(&m->vertex_count, EDIT_SHRINK);
    case 1: return AT(&m->index_count, EDIT_SHRINK);
    case 2: return AT(&m->mesh_count, EDIT_SHRINK);
    case 3: return AT(&m->morph_delta_count, EDIT_SHRINK);
    case 4: return AT(&sk->node_count, EDIT_SHRINK);
    case 5: return AT(&sk->bone_count, EDIT_SHRINK);
    case 6: return AT(&m->clip_count, EDIT_SHRINK);
    case 7: return AT(&m->file_bone_count, EDIT_INT);
    case 8: return AT(&m->influence_lists, EDIT_INT);
    case 9: return AT(&m->skeleton_only, EDIT_INT);
    case 10: return mesh ? AT(&mesh->base_vertex, EDIT_INT) : none;
    case 11: return mesh ? AT(&mesh->vertex_count, EDIT_INT) : none;
    case 12: return mesh ? AT(&mesh->first_index, EDIT_INT) : none;
    case 13: return mesh ? AT(&mesh->index_count, EDIT_INT) : none;
    case 14: return mesh ? AT(&mesh->material, EDIT_INT) : none;
    case 15: return mesh ? AT(&mesh->node, EDIT_INT) : none;
    case 16: return mesh ? AT(&mesh->morph_target_count, EDIT_SHRINK) : none;
    case 17: return mesh ? AT(&mesh->first_morph_target, EDIT_INT) : none;
    case 18: return mesh ? AT(&mesh->morph_delta_base, EDIT_INT) : none;
    case 19: return mesh ? AT(&mesh->over_limit_vertices, EDIT_INT) : none;
    case 20: return mesh ? AT(&mesh->unweighted_vertices, EDIT_INT) : none;
    case 21: return m->index_count ? AT(&m->indices[i % (unsigned)m->index_count], EDIT_INT) : none;
    case 22: return sk->node_count ? AT(&sk->parents[i % (unsigned)sk->node_count], EDIT_INT) : none;
    case 23: return sk->bone_count ? AT(&sk->bone_node[i % (unsigned)sk->bone_count], EDIT_INT) : none;
    case 24: return influences ? AT(&m->influences[i % (unsigned)influences].bone, EDIT_INT) : none;
    case 25: /* within the list's total: the writer reads the list to influence_start[vertex_count] */
        return m->vertex_count > 1 ? AT(&m->influence_start[1 + i % (unsigned)(m->vertex_count - 1)], EDIT_SHRINK)
                                   : none;
    case 26: return AT(&mat->texture, EDIT_INT);
    case 27: return AT(&mat->textures[i % SKV_TEX_SLOTS], EDIT_INT);
    case 28: return AT(&mat->alpha_mode, EDIT_INT);
    case 29: return AT(&mat->shading, EDIT_INT);
    case 30: return clip ? AT(&clip->channel_count, EDIT_SHRINK) : none;
    case 31: return clip && sk->node_count ? AT(&clip->node_channel[(i >> 4) % (unsigned)sk->node_count], EDIT_INT) : none;
    case 32: return ch ? AT(&ch->node, EDIT_INT) : none;
    case 33: return ch ? AT(&ch->position_count, EDIT_SHRINK) : none;
    case 34: return clip ? AT(&clip->morph_channel_count, EDIT_SHRINK) : none;
    case 35: return clip ? AT(&clip->notes, EDIT_INT) : none;
    case 36: return mc ? AT(&mc->key_count, EDIT_SHRINK) : none;
    case 37: return m->vertex_count ? AT(&m->bone_ids[i % (unsigned)(m->vertex_count * m->influence_slots)], EDIT_U16)
                                    : none;
    case 38: return m->vertex_count ? AT(&m->positions[i % (unsigned)(m->vertex_count * 3)], EDIT_FLOAT) : none;
    case 39: return ch && ch->position_count ? AT(&ch->positions[(i & 15) % (unsigned)ch->position_count].time, EDIT_DOUBLE)
                                             : none;
    case 40: return ch ? AT(&ch->rotations[(i & 15) % (unsigned)ch->rotation_count].value[i & 3], EDIT_FLOAT) : none;
    case 41: return clip ? AT(&clip->duration_ticks, EDIT_DOUBLE) : none;
    case 42: return clip ? AT(&clip->ticks_per_second, EDIT_DOUBLE) : none;
    case 43: return sk->node_count ? AT(&sk->rest_local[i % (unsigned)sk->node_count][(i >> 4) & 3][(i >> 6) & 3], EDIT_FLOAT)
                                   : none;
    case 44: return m->vertex_count ? AT(&m->weights[i % (unsigned)(m->vertex_count * m->influence_slots)], EDIT_FLOAT)
                                    : none;
    default: return influences ? AT(&m->influences[i % (unsigned)influences].weight, EDIT_FLOAT) : none;
    }
#undef AT
}

/* Undone before the model is freed (its counts say what to free). */
typedef struct undo {
    void *at;
    unsigned char old[8];
    size_t size;
} undo;

/* The block of base data[1] with the edits of data[2..] applied, or NULL. */
static unsigned char *edited_block(const uint8_t *data, size_t size, size_t *out_size)
{
    if (base_count == 0 || size < 2) return NULL;
    int b = data[1] % base_count;
    skv_model model;
    skv_error err;
    if (blob_read(bases[b], base_sizes[b], &model, NULL, &err) != SKV_OK) abort(); /* the seeds read */
    undo undos[MAX_EDITS];
    int edits = 0;
    for (size_t at = 2; at + 8 <= size && edits < MAX_EDITS; at += 8) {
        unsigned which = data[at], element;
        uint16_t e16;
        uint32_t value;
        memcpy(&e16, data + at + 2, sizeof e16);
        memcpy(&value, data + at + 4, sizeof value);
        element = e16 | (unsigned)data[at + 1] << 16;
        edit_target t = edit_at(&model, which, element);
        if (!t.at) continue;
        size_t width = t.kind == EDIT_U16 ? 2 : t.kind == EDIT_DOUBLE ? 8 : 4;
        undo *u = &undos[edits++];
        u->at = t.at, u->size = width;
        memcpy(u->old, t.at, width);
        /* Ints: a value's top bit set, the value itself; else a step of
         * -8..7 from the old one (a count or index one off is where
         * checks are missing). Lowered counts: as much, but lower. */
        int old_int = 0;
        if (t.kind == EDIT_INT || t.kind == EDIT_SHRINK) memcpy(&old_int, t.at, sizeof old_int);
        int step = (int)(value & 15) - 8, absolute = (int)(value & 0x7fffffffu);
        if (t.kind == EDIT_SHRINK) {
            int v = value >> 31 ? absolute : old_int - 1 - (int)(value & 7);
            if (v >= 0 && v < old_int) memcpy(t.at, &v, sizeof v);
        } else if (t.kind == EDIT_INT && !(value >> 31)) {
            int v = (int)((unsigned)old_int + (unsigned)step);
            memcpy(t.at, &v, sizeof v);
        } else if (t.kind == EDIT_INT) {
            memcpy(t.at, &absolute, sizeof absolute);
        } else if (t.kind == EDIT_U16) {
            uint16_t v = (uint16_t)value;
            memcpy(t.at, &v, sizeof v);
        } else if (t.kind == EDIT_DOUBLE) {
            float f;
            memcpy(&f, &value, sizeof f);
            double d = f;
            memcpy(t.at, &d, sizeof d);
        } else {
            memcpy(t.at, &value, sizeof value); /* a float's bits */
        }
    }
    unsigned char *bytes = NULL;
    if (blob_write(&model, 0, &bytes, out_size, &err) != SKV_OK) bytes = NULL;
    while (edits-- > 0) memcpy(undos[edits].at, undos[edits].old, undos[edits].size);
    model_free(&model);
    return bytes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!null_out && !(null_out = fopen("/dev/null", "w"))) abort();
    unsigned char *bytes;
    if (size >= 1 && data[0] == 'E') {
        bytes = edited_block(data, size, &size);
        if (!bytes) return 0;
    } else {
        bytes = malloc(size ? size : 1);
        if (!bytes) return 0;
        memcpy(bytes, data, size);
        if (size >= 24) {
            uint64_t whole = size;
            memcpy(bytes + 16, &whole, sizeof whole);
        }
    }

    skv_model model;
    skv_error err;
    int64_t extra;
    skv_result copied = blob_read(bytes, size, &model, &extra, &err);
    if (copied == SKV_OK) {
        exercise(&model);
        model_free(&model);
    }
    /* Adopted in place, as guard.c maps the child's memfd. */
    size_t mapped_size = size ? size : 1;
    void *mapped = mmap(NULL, mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) abort();
    memcpy(mapped, bytes, size);
    skv_result adopted = blob_adopt(mapped, size, &model, &extra, &err);
    if (adopted == SKV_OK) {
        exercise(&model);
        model_free(&model); /* unmaps it */
    } else {
        munmap(mapped, mapped_size);
    }
    if (copied != adopted) abort(); /* the two readers must agree */
    free(bytes);
    return 0;
}
