/* test_blob.c - the model block the guarded child hands back (blob.h):
 * a model read in this process (--trust) survives the round trip exactly
 * (same block when written again, same palettes at the same times), each
 * defect blob_read must catch is caught (a cycle in the nodes, an index
 * past its vertices, NaN, a wrong count, a truncated or foreign block;
 * test_defects: NaN and infinity in each float array, values past the
 * importer's 1e15, a mesh of 4 indices, padding that is not zero,
 * strings with a NUL inside or too long, bad offsets, links the
 * consumers rely on: a channel and its node, a slot and its list),
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
#include <limits.h>
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
    skv_walks *wa = NULL, *wb = NULL;
    if (walks_create(&wa, a) != SKV_OK || walks_create(&wb, b) != SKV_OK || pose_create(&pa, &a->skeleton) != 0) {
        walks_destroy(wa), walks_destroy(wb);
        return 0;
    }
    if (pose_create(&pb, &b->skeleton) != 0) {
        pose_destroy(&pa);
        walks_destroy(wa), walks_destroy(wb);
        return 0;
    }
    int same = 1;
    for (int c = -1; c < a->clip_count && same; c++)
        for (int step = 0; step < 5 && same; step++) {
            double t = 0.37 * step;
            pose_evaluate(&pa, wa, c, t);
            pose_evaluate(&pb, wb, c, t);
            same = memcmp(pa.palette, pb.palette, (size_t)a->skeleton.bone_count * sizeof(mat4)) == 0;
        }
    pose_destroy(&pa);
    pose_destroy(&pb);
    walks_destroy(wa), walks_destroy(wb);
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

/* --- the rest of what blob_check and the reader must catch (issue #48) ---
 * Each defect below is made in a model (then written) or in a block's
 * bytes, and must be refused both ways (blob_read and blob_adopt). */

/* A float or double the spoils below overwrite, and what with. */
typedef float *(*float_at_fn)(skv_model *m);
typedef double *(*double_at_fn)(skv_model *m);
static float_at_fn float_at;
static double_at_fn double_at;
static float float_value, float_saved;
static double double_value, double_saved;

static void spoil_float(skv_model *m, int undo)
{
    float *p = float_at(m);
    if (!undo) float_saved = *p, *p = float_value;
    else *p = float_saved;
}

static void spoil_double(skv_model *m, int undo)
{
    double *p = double_at(m);
    if (!undo) double_saved = *p, *p = double_value;
    else *p = double_saved;
}

static skv_channel *first_channel(skv_model *m)
{
    return m->clip_count && m->clips[0].channel_count ? &m->clips[0].channels[0] : NULL;
}

static skv_morph_channel *first_morph_channel(skv_model *m)
{
    for (int c = 0; c < m->clip_count; c++)
        if (m->clips[c].morph_channel_count) return &m->clips[c].morph_channels[0];
    return NULL;
}

/* Where each float array the parent reads may hold a bad value; NULL
 * where the model has none of it. */
static float *at_position(skv_model *m) { return m->vertex_count ? &m->positions[m->vertex_count * 3 - 1] : NULL; }
static float *at_normal(skv_model *m) { return m->vertex_count ? &m->normals[1] : NULL; }
static float *at_uv(skv_model *m) { return m->vertex_count ? &m->uvs[m->vertex_count * 2 - 1] : NULL; }
static float *at_tangent(skv_model *m) { return m->tangents ? &m->tangents[3] : NULL; }
static float *at_weight(skv_model *m) { return m->vertex_count ? &m->weights[0] : NULL; }
static float *at_influence(skv_model *m)
{
    return m->vertex_count ? &m->influences[m->influence_start[m->vertex_count] - 1].weight : NULL;
}
static float *at_morph_position(skv_model *m) { return m->morph_target_count ? &m->morph_position_deltas[2] : NULL; }
static float *at_morph_normal(skv_model *m) { return m->morph_target_count ? &m->morph_normal_deltas[0] : NULL; }
static float *at_morph_default(skv_model *m) { return m->morph_target_count ? &m->morph_default_weights[0] : NULL; }
static float *at_morph_key_weight(skv_model *m)
{
    skv_morph_channel *mc = first_morph_channel(m);
    return mc ? &mc->weights[0] : NULL;
}
static float *at_position_key(skv_model *m) { return first_channel(m) ? &first_channel(m)->positions[0].value[1] : NULL; }
static float *at_rotation_key(skv_model *m) { return first_channel(m) ? &first_channel(m)->rotations[0].value[3] : NULL; }
static float *at_scale_key(skv_model *m) { return first_channel(m) ? &first_channel(m)->scales[0].value[0] : NULL; }
static float *at_rest(skv_model *m) { return &m->skeleton.rest_local[m->skeleton.node_count - 1][3][1]; }
static float *at_offset(skv_model *m) { return m->skeleton.bone_count ? &m->skeleton.bone_offset[0][0][0] : NULL; }
static float *at_global_inverse(skv_model *m) { return &m->global_inverse[3][2]; }
static float *at_upright(skv_model *m) { return &m->upright[0][1]; }
static float *at_diffuse(skv_model *m) { return &m->materials[0].diffuse[2]; }
static float *at_metallic(skv_model *m) { return &m->materials[0].metallic; }
static float *at_roughness(skv_model *m) { return &m->materials[0].roughness; }
static float *at_emissive(skv_model *m) { return &m->materials[0].emissive[0]; }
static float *at_normal_scale(skv_model *m) { return &m->materials[0].normal_scale; }
static float *at_occlusion(skv_model *m) { return &m->materials[0].occlusion_strength; }
static float *at_cutoff(skv_model *m) { return &m->materials[0].alpha_cutoff; }
/* The explicit padding of a vector key (skv_vec3_key.zero). */
static float *at_position_key_pad(skv_model *m) { return first_channel(m) ? &first_channel(m)->positions[0].zero : NULL; }
static float *at_scale_key_pad(skv_model *m)
{
    skv_channel *ch = first_channel(m);
    return ch ? &ch->scales[ch->scale_count - 1].zero : NULL;
}

static double *at_position_time(skv_model *m) { return first_channel(m) ? &first_channel(m)->positions[0].time : NULL; }
static double *at_rotation_time(skv_model *m)
{
    skv_channel *ch = first_channel(m);
    return ch ? &ch->rotations[ch->rotation_count - 1].time : NULL;
}
static double *at_scale_time(skv_model *m) { return first_channel(m) ? &first_channel(m)->scales[0].time : NULL; }
static double *at_morph_time(skv_model *m)
{
    skv_morph_channel *mc = first_morph_channel(m);
    return mc ? &mc->times[mc->key_count - 1] : NULL;
}
static double *at_duration(skv_model *m) { return m->clip_count ? &m->clips[0].duration_ticks : NULL; }
static double *at_tick_rate(skv_model *m) { return m->clip_count ? &m->clips[0].ticks_per_second : NULL; }

/* Writes `model`, lets `spoil` change the block's bytes, reads it back:
 * refused both ways with a "malformed" line? */
static int refused_bytes(const skv_model *model, void (*spoil)(unsigned char *, size_t, const skv_model *),
                         const char *what)
{
    size_t size = 0;
    unsigned char *bytes = write_model(model, &size);
    if (!bytes) return 0;
    spoil(bytes, size, model);
    skv_model back;
    skv_error err = {{0}}, adopt_err = {{0}};
    skv_result r = blob_read(bytes, size, &back, NULL, &err);
    if (r == SKV_OK) model_free(&back);
    skv_result adopted = adopt_copy(bytes, size, &back, NULL, &adopt_err);
    if (adopted == SKV_OK) model_free(&back);
    free(bytes);
    if (r == SKV_OK || adopted == SKV_OK) {
        fprintf(stderr, "not refused: %s\n", what);
        return 0;
    }
    return strstr(err.message, "malformed") != NULL && strcmp(err.message, adopt_err.message) == 0;
}

/* The block's layout as blob.c writes it: a header whose bytes 24..31
 * hold the offset of the model's own bytes; a struct's pointer field
 * holds the offset of its record; a record is a count and an element
 * size (uint64 each), then the elements, each record 8-byte aligned. */
static uint64_t u64_at(const unsigned char *bytes, size_t at)
{
    uint64_t v;
    memcpy(&v, bytes + at, sizeof v);
    return v;
}

static void put_u64(unsigned char *bytes, size_t at, uint64_t v)
{
    memcpy(bytes + at, &v, sizeof v);
}

static size_t model_image(const unsigned char *bytes)
{
    return (size_t)u64_at(bytes, 24);
}

/* The record a field of the model points to (0: none). */
static size_t model_record(const unsigned char *bytes, size_t field)
{
    return (size_t)u64_at(bytes, model_image(bytes) + field);
}

/* The first node name whose record's bytes do not end on an 8-byte
 * boundary (so padding follows), and at least 2 long; 0 if none. */
static size_t padded_name(const unsigned char *bytes, const skv_model *model)
{
    size_t names = model_record(bytes, offsetof(skv_model, skeleton.node_names));
    for (int n = 0; n < model->skeleton.node_count; n++) {
        size_t at = (size_t)u64_at(bytes, names + 16 + (size_t)n * 8);
        uint64_t count = u64_at(bytes, at);
        if (count >= 2 && count % 8) return at;
    }
    return 0;
}

static void nul_inside_name(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size;
    size_t at = padded_name(bytes, model);
    if (at) bytes[at + 16] = '\0';
}

static void unterminated_name(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size;
    size_t at = padded_name(bytes, model);
    if (at) bytes[at + 16 + u64_at(bytes, at) - 1] = 'x';
}

static void record_padding(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size;
    size_t at = padded_name(bytes, model);
    if (at) bytes[at + 16 + u64_at(bytes, at)] = 1;
}

/* Padding inside the model's own struct (after vertex_count) and a
 * material's (after its texture indices). */
static void model_struct_padding(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    bytes[model_image(bytes) + offsetof(skv_model, vertex_count) + sizeof(int)] = 1;
}

static void material_struct_padding(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    size_t materials = model_record(bytes, offsetof(skv_model, materials));
    bytes[materials + 16 + offsetof(skv_material, textures) + sizeof ((skv_material *)0)->textures] = 1;
}

static void clip_struct_padding(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    size_t clips = model_record(bytes, offsetof(skv_model, clips));
    bytes[clips + 16 + offsetof(skv_clip, channel_count) + sizeof(int)] = 1;
}

/* The positions' offset: misaligned, into the header, past the block,
 * at another record (the uvs: another count). */
static void positions_misaligned(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    size_t field = model_image(bytes) + offsetof(skv_model, positions);
    put_u64(bytes, field, u64_at(bytes, field) + 4);
}

static void positions_in_header(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    put_u64(bytes, model_image(bytes) + offsetof(skv_model, positions), 8);
}

static void positions_past_block(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)model;
    put_u64(bytes, model_image(bytes) + offsetof(skv_model, positions), (size + 8) & ~(size_t)7);
}

static void positions_at_uvs(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    put_u64(bytes, model_image(bytes) + offsetof(skv_model, positions), model_record(bytes, offsetof(skv_model, uvs)));
}

static void positions_count_off(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    size_t at = model_record(bytes, offsetof(skv_model, positions));
    put_u64(bytes, at, u64_at(bytes, at) - 3);
}

static void model_offset_misaligned(unsigned char *bytes, size_t size, const skv_model *model)
{
    (void)size, (void)model;
    put_u64(bytes, 24, u64_at(bytes, 24) + 4);
}

/* Mesh 0's index count 4: a triangle and one index of the next. */
static void four_indices(skv_model *m, int undo)
{
    if (!undo) saved_int = m->meshes[0].index_count, m->meshes[0].index_count = 4;
    else m->meshes[0].index_count = saved_int;
}

static void over_limit_past_vertices(skv_model *m, int undo)
{
    if (!undo) saved_int = m->meshes[0].over_limit_vertices, m->meshes[0].over_limit_vertices = m->meshes[0].vertex_count + 1;
    else m->meshes[0].over_limit_vertices = saved_int;
}

static void unweighted_negative(skv_model *m, int undo)
{
    if (!undo) saved_int = m->meshes[0].unweighted_vertices, m->meshes[0].unweighted_vertices = -1;
    else m->meshes[0].unweighted_vertices = saved_int;
}

static char *saved_name;
static void long_mesh_name(skv_model *m, int undo)
{
    if (!undo) {
        saved_name = m->meshes[0].name;
        m->meshes[0].name = malloc(70001);
        memset(m->meshes[0].name, 'a', 70000);
        m->meshes[0].name[70000] = '\0';
    } else {
        free(m->meshes[0].name);
        m->meshes[0].name = saved_name;
    }
}

/* Clip 0's channel 0 moved to a node the clip's map does not give it. */
static void channel_off_its_node(skv_model *m, int undo)
{
    int *node = &m->clips[0].channels[0].node;
    if (!undo) saved_int = *node, *node = (*node + 1) % m->skeleton.node_count;
    else *node = saved_int;
}

static void unknown_note(skv_model *m, int undo)
{
    static unsigned saved;
    if (!undo) saved = m->clips[0].notes, m->clips[0].notes |= 1u << 30;
    else m->clips[0].notes = saved;
}

/* Every influence blended from the lists, and vertex 0's first slot
 * naming a bone its list does not hold (draws.c then put more bones in
 * a draw than it had room for). */
static void slot_outside_list(skv_model *m, int undo)
{
    static int saved_lists;
    if (!undo) {
        saved_lists = m->influence_lists, saved_int = m->bone_ids[0];
        m->influence_lists = 1;
        m->bone_ids[0] = (uint16_t)((m->bone_ids[0] + 1) % m->skeleton.bone_count);
    } else {
        m->influence_lists = saved_lists, m->bone_ids[0] = (uint16_t)saved_int;
    }
}

static void morph_tail(skv_model *m, int undo)
{
    float *tail = &m->morph_position_deltas[(size_t)m->morph_delta_count * 3 + 1];
    if (!undo) float_saved = *tail, *tail = 1.0f;
    else *tail = float_saved;
}

/* blob_check on a model changed in place (no block: the defect would
 * also change a record's count, which the reader refuses first). */
static int check_refuses(skv_model *model, void (*spoil)(skv_model *, int undo), const char *what)
{
    spoil(model, 0);
    skv_error err = {{0}};
    skv_result r = blob_check(model, &err);
    spoil(model, 1);
    if (r == SKV_OK) fprintf(stderr, "not refused by blob_check: %s\n", what);
    return r == SKV_ERR_IMPORT && strstr(err.message, "malformed") != NULL;
}

/* More vertices than 32-bit slot numbers reach (vertex x slots): refused
 * before any array is looked at. */
static void vertices_past_int(skv_model *m, int undo)
{
    if (!undo) saved_int = m->vertex_count, m->vertex_count = INT_MAX / 4 + 1;
    else m->vertex_count = saved_int;
}

/* A morph channel on a mesh without morph targets. */
static void morph_channel_on_plain_mesh(skv_model *m, int undo)
{
    skv_mesh *mesh = &m->meshes[first_morph_channel(m)->mesh];
    static int saved_count;
    if (!undo) saved_count = mesh->morph_target_count, mesh->morph_target_count = 0;
    else mesh->morph_target_count = saved_count;
}

static void test_defects(skv_model *model)
{
    static const struct {
        const char *what;
        float_at_fn at;
    } floats[] = {
        {"position", at_position},       {"normal", at_normal},
        {"uv", at_uv},                   {"tangent", at_tangent},
        {"slot weight", at_weight},      {"influence weight", at_influence},
        {"morph position delta", at_morph_position}, {"morph normal delta", at_morph_normal},
        {"morph default weight", at_morph_default},   {"morph key weight", at_morph_key_weight},
        {"position key", at_position_key}, {"rotation key", at_rotation_key},
        {"scale key", at_scale_key},     {"rest transform", at_rest},
        {"bone offset", at_offset},      {"global inverse", at_global_inverse},
        {"upright", at_upright},         {"base colour", at_diffuse},
        {"metallic", at_metallic},       {"roughness", at_roughness},
        {"emission", at_emissive},       {"normal scale", at_normal_scale},
        {"occlusion strength", at_occlusion}, {"alpha cutoff", at_cutoff},
    };
    static const struct {
        const char *what;
        double_at_fn at;
    } doubles[] = {
        {"position key time", at_position_time}, {"rotation key time", at_rotation_time},
        {"scale key time", at_scale_time},       {"morph key time", at_morph_time},
        {"clip duration", at_duration},          {"clip tick rate", at_tick_rate},
    };
    char what[200];
    int tried = 0;
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        if (!floats[i].at(model)) continue;
        float_at = floats[i].at;
        const float bad[] = {NAN, INFINITY};
        for (int k = 0; k < 2; k++) {
            float_value = bad[k];
            snprintf(what, sizeof what, "%s %s", k ? "infinite" : "NaN", floats[i].what);
            CHECK(refused_after(model, spoil_float, what));
            tried++;
        }
    }
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        if (!doubles[i].at(model)) continue;
        double_at = doubles[i].at;
        double_value = NAN;
        snprintf(what, sizeof what, "NaN %s", doubles[i].what);
        CHECK(refused_after(model, spoil_double, what));
        tried++;
    }
    /* Beyond what the importer lets through (1e15: products overflow). */
    float_value = 1e16f;
    static const struct {
        const char *what;
        float_at_fn at;
    } bounded[] = {{"position key", at_position_key}, {"rotation key", at_rotation_key},
                   {"scale key", at_scale_key},       {"rest transform", at_rest},
                   {"bone offset", at_offset}};
    for (size_t i = 0; i < sizeof bounded / sizeof bounded[0]; i++) {
        if (!bounded[i].at(model)) continue;
        float_at = bounded[i].at;
        snprintf(what, sizeof what, "%s beyond 1e15", bounded[i].what);
        CHECK(refused_after(model, spoil_float, what));
    }
    /* The explicit padding of vector keys. */
    float_value = 1.0f;
    if (first_channel(model)) {
        float_at = at_position_key_pad;
        CHECK(refused_after(model, spoil_float, "position key padding"));
        float_at = at_scale_key_pad;
        CHECK(refused_after(model, spoil_float, "scale key padding"));
    }

    /* Counts, indices and links. */
    if (model->mesh_count && model->index_count - model->meshes[0].first_index >= 4)
        CHECK(refused_after(model, four_indices, "a mesh of 4 indices"));
    if (model->mesh_count) {
        CHECK(refused_after(model, over_limit_past_vertices, "more vertices over the slots than the mesh has"));
        CHECK(refused_after(model, unweighted_negative, "a negative count of unweighted vertices"));
        CHECK(refused_after(model, long_mesh_name, "a name of 70,000 bytes"));
    }
    if (first_channel(model) && model->skeleton.node_count >= 2)
        CHECK(refused_after(model, channel_off_its_node, "a channel on a node the clip's map does not give it"));
    if (model->clip_count) CHECK(refused_after(model, unknown_note, "an unknown clip note"));
    if (model->vertex_count && model->skeleton.bone_count >= 2)
        CHECK(refused_after(model, slot_outside_list, "a slot's bone outside its vertex's list"));
    if (model->morph_target_count) CHECK(refused_after(model, morph_tail, "morph delta padding"));
    CHECK(check_refuses(model, vertices_past_int, "vertices x slots past INT_MAX"));
    if (first_morph_channel(model))
        CHECK(check_refuses(model, morph_channel_on_plain_mesh, "a morph channel on a mesh without targets"));

    /* The block's own bytes: strings, padding, offsets. */
    size_t size = 0;
    unsigned char *bytes = write_model(model, &size);
    int has_padded_name = bytes && padded_name(bytes, model);
    free(bytes);
    if (has_padded_name) {
        CHECK(refused_bytes(model, nul_inside_name, "a NUL inside a name"));
        CHECK(refused_bytes(model, unterminated_name, "an unterminated name"));
        CHECK(refused_bytes(model, record_padding, "a record's padding not zero"));
    }
    CHECK(refused_bytes(model, model_struct_padding, "padding in the model's struct"));
    CHECK(refused_bytes(model, material_struct_padding, "padding in a material's struct"));
    if (model->clip_count) CHECK(refused_bytes(model, clip_struct_padding, "padding in a clip's struct"));
    if (model->vertex_count) {
        CHECK(refused_bytes(model, positions_misaligned, "positions at a misaligned offset"));
        CHECK(refused_bytes(model, positions_in_header, "positions in the header"));
        CHECK(refused_bytes(model, positions_past_block, "positions past the block"));
        CHECK(refused_bytes(model, positions_at_uvs, "positions at the uvs' record"));
        CHECK(refused_bytes(model, positions_count_off, "positions' record a vertex short"));
    }
    CHECK(refused_bytes(model, model_offset_misaligned, "the model's bytes at a misaligned offset"));
    printf("%s: %d bad floats refused%s%s%s\n", model->path ? model->path : "?", tried,
           model->tangents ? ", tangents" : "", model->morph_target_count ? ", morph targets" : "",
           model->influence_lists ? ", influence lists" : "");
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
    /* blob.c's field lists hold every field (one missing reads as
     * padding, zero in a block: a value lost across the guard). */
    CHECK(blob_padding_clean(&model));

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
    test_defects(&model);

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
            skv_walks *walks;
            if (walks_create(&walks, &m) == SKV_OK) {
                if (pose_create(&pose, &m.skeleton) == 0) {
                    for (int c = -1; c < m.clip_count; c++) pose_evaluate(&pose, walks, c, 0.5);
                    pose_destroy(&pose);
                }
                walks_destroy(walks);
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
    fix_context fix = {.path = path};
    const struct aiScene *scene = read_scene(&fix, import_read_flags());
    free(fix.durations);
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
/* Whether two meshes hold the same: counts, every array bit for bit,
 * every face's indices, every bone's name, offset and weights. */
/* Two clips' channels the same, key by key, bit for bit (times and values). */
static int same_clip(const struct aiAnimation *a, const struct aiAnimation *b)
{
    if (a->mDuration != b->mDuration || a->mTicksPerSecond != b->mTicksPerSecond ||
        a->mNumChannels != b->mNumChannels)
        return 0;
    for (unsigned c = 0; c < a->mNumChannels; c++) {
        const struct aiNodeAnim *x = a->mChannels[c], *y = b->mChannels[c];
        if (strcmp(x->mNodeName.data, y->mNodeName.data) != 0 || x->mNumPositionKeys != y->mNumPositionKeys ||
            x->mNumRotationKeys != y->mNumRotationKeys || x->mNumScalingKeys != y->mNumScalingKeys ||
            x->mPreState != y->mPreState || x->mPostState != y->mPostState)
            return 0;
        /* Field by field: a key struct's padding is not part of it. */
        for (unsigned k = 0; k < x->mNumPositionKeys; k++)
            if (x->mPositionKeys[k].mTime != y->mPositionKeys[k].mTime ||
                memcmp(&x->mPositionKeys[k].mValue, &y->mPositionKeys[k].mValue, sizeof(struct aiVector3D)) != 0)
                return 0;
        for (unsigned k = 0; k < x->mNumRotationKeys; k++)
            if (x->mRotationKeys[k].mTime != y->mRotationKeys[k].mTime ||
                memcmp(&x->mRotationKeys[k].mValue, &y->mRotationKeys[k].mValue, sizeof(struct aiQuaternion)) != 0)
                return 0;
        for (unsigned k = 0; k < x->mNumScalingKeys; k++)
            if (x->mScalingKeys[k].mTime != y->mScalingKeys[k].mTime ||
                memcmp(&x->mScalingKeys[k].mValue, &y->mScalingKeys[k].mValue, sizeof(struct aiVector3D)) != 0)
                return 0;
    }
    return 1;
}

static int same_mesh(const struct aiMesh *a, const struct aiMesh *b)
{
    if (a->mNumVertices != b->mNumVertices || a->mNumFaces != b->mNumFaces || a->mNumBones != b->mNumBones ||
        a->mPrimitiveTypes != b->mPrimitiveTypes || a->mMaterialIndex != b->mMaterialIndex ||
        a->mNumAnimMeshes != b->mNumAnimMeshes || strcmp(a->mName.data, b->mName.data) != 0)
        return 0;
    size_t n = a->mNumVertices;
    const struct aiVector3D *streams[][2] = {{a->mVertices, b->mVertices}, {a->mNormals, b->mNormals},
                                             {a->mTangents, b->mTangents}, {a->mBitangents, b->mBitangents}};
    for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++)
        if (!streams[k][0] != !streams[k][1] || (streams[k][0] && memcmp(streams[k][0], streams[k][1], n * 12) != 0))
            return 0;
    for (int t = 0; t < AI_MAX_NUMBER_OF_TEXTURECOORDS; t++)
        if (!a->mTextureCoords[t] != !b->mTextureCoords[t] || a->mNumUVComponents[t] != b->mNumUVComponents[t] ||
            (a->mTextureCoords[t] && memcmp(a->mTextureCoords[t], b->mTextureCoords[t], n * 12) != 0))
            return 0;
    for (int c = 0; c < AI_MAX_NUMBER_OF_COLOR_SETS; c++)
        if (!a->mColors[c] != !b->mColors[c] || (a->mColors[c] && memcmp(a->mColors[c], b->mColors[c], n * 16) != 0))
            return 0;
    for (unsigned f = 0; f < a->mNumFaces; f++)
        if (a->mFaces[f].mNumIndices != b->mFaces[f].mNumIndices ||
            memcmp(a->mFaces[f].mIndices, b->mFaces[f].mIndices, a->mFaces[f].mNumIndices * sizeof(unsigned)) != 0)
            return 0;
    for (unsigned k = 0; k < a->mNumBones; k++) {
        const struct aiBone *x = a->mBones[k], *y = b->mBones[k];
        if (strcmp(x->mName.data, y->mName.data) != 0 || x->mNumWeights != y->mNumWeights ||
            memcmp(&x->mOffsetMatrix, &y->mOffsetMatrix, sizeof x->mOffsetMatrix) != 0 ||
            memcmp(x->mWeights, y->mWeights, x->mNumWeights * sizeof *x->mWeights) != 0)
            return 0;
    }
    return 1;
}

/* A big skinned glTF, indexed already (tests/tools/gen/gltf_big_skin.py),
 * is read in one step (read_big_gltf_at_once: its JSON says the join
 * would be skipped, and the scene confirms it) where files this big are
 * read in two. The one read must be the scene the two steps read, which
 * the same bytes handed over from memory still get: every mesh the same
 * bit for bit, the same clips, the same fixes fired. And that the one
 * read is taken at all: else this compares the two steps with
 * themselves. */
static void test_once(const char *path)
{
    unsigned flags = import_read_flags();
    fix_context once = {.path = path};
    CHECK(read_big_gltf_at_once(&once, flags));
    const struct aiScene *a = once.scene;
    long size = 0;
    unsigned char *bytes = read_whole_file(path, &size);
    CHECK(bytes != NULL);
    fix_context twice = {.path = path, .bytes = bytes, .size = size, .hint = "glb"};
    const struct aiScene *b = bytes ? read_scene(&twice, flags) : NULL;
    CHECK(a != NULL && b != NULL);
    CHECK(once.fired == twice.fired && once.fired != 0);
    CHECK(!once.durations && !twice.durations);
    if (a && b) {
        CHECK(a->mNumMeshes == b->mNumMeshes && a->mNumAnimations == b->mNumAnimations &&
              a->mNumMaterials == b->mNumMaterials && a->mFlags == b->mFlags);
        int meshes = 0, vertices = 0;
        for (unsigned m = 0; m < a->mNumMeshes && m < b->mNumMeshes; m++) {
            meshes += same_mesh(a->mMeshes[m], b->mMeshes[m]);
            vertices += (int)a->mMeshes[m]->mNumVertices;
        }
        CHECK(meshes == (int)a->mNumMeshes);
        for (unsigned k = 0; k < a->mNumAnimations && k < b->mNumAnimations; k++) {
            const struct aiAnimation *x = a->mAnimations[k], *y = b->mAnimations[k];
            CHECK(x->mDuration == y->mDuration && x->mTicksPerSecond == y->mTicksPerSecond &&
                  x->mNumChannels == y->mNumChannels);
            CHECK(same_clip(x, y)); /* every key: poses between keys are the two-step read's */
        }
        printf("%s: read once, %u meshes, %d vertices, the same as in two steps: %s\n", path, a->mNumMeshes,
               vertices, meshes == (int)a->mNumMeshes ? "yes" : "NO");
    }
    if (a) aiReleaseImport(a);
    if (b) aiReleaseImport(b);
    free(bytes);
}

/* A big glTF whose JSON does not settle it (a primitive of lines beside
 * the big skinned one: Assimp's steps reshape it), or whose scene a
 * FIX_READ_SCENE row would edit (a key past the clip's end, by less than
 * Assimp's validation sees), is read in two steps. */
static void test_not_once(const char *path)
{
    fix_context fix = {.path = path};
    CHECK(!read_big_gltf_at_once(&fix, import_read_flags()));
    CHECK(fix.scene == NULL && fix.fired == 0);
}

int main(int argc, char **argv)
{
    int estimate = argc > 1 && strcmp(argv[1], "--estimate") == 0;
    int limit = argc > 1 && strcmp(argv[1], "--limit") == 0;
    int once = argc > 1 && strcmp(argv[1], "--once") == 0;
    int not_once = argc > 1 && strcmp(argv[1], "--not-once") == 0;
    for (int i = 1 + estimate + limit + once + not_once; i < argc; i++)
        (estimate ? test_estimate : limit ? test_limit : once ? test_once : not_once ? test_not_once : test_model)(argv[i]);
    return check_summary();
}
