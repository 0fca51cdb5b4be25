/* blob.c - skv_model <-> one flat block of bytes (blob.h).
 *
 * Layout: a header, then records, each 8-byte aligned (zeros pad
 * between them). A record is a count and an element size (two uint64)
 * followed by the elements. A struct travels as its own bytes with every
 * pointer field replaced by the offset of the record that holds what it
 * pointed to (0: NULL), its padding zero.
 * Which fields are pointers, what they hold and how many elements they
 * must have is the table below: one row per pointer field. The reader
 * trusts nothing in the block: offsets, counts and sizes are checked
 * before anything is read, and blob_check then checks the finished model
 * as a whole. */
#include "private/blob.h"
#include "private/import_internal.h" /* SKV_MAX_MAGNITUDE */
#include "anim.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>

enum { BLOB_VERSION = 1 };
/* The importer refuses textures past this side (textures.c). */
enum { BLOB_MAX_TEXTURE_SIDE = 16384 };
/* The longest string a block may hold, its NUL included: the importer's
 * are names (Assimp's aiString: at most 1 KB), paths and one-line
 * warnings. */
enum { BLOB_MAX_STRING = 1 << 16 };
static const char blob_magic[8] = {'S', 'K', 'V', 'M', 'O', 'D', 'E', 'L'};

typedef struct blob_header {
    char magic[8];
    uint32_t version;
    uint32_t layout; /* blob_layout(): the structs' sizes and the table, hashed */
    uint64_t size;   /* of the whole block */
    uint64_t model;  /* offset of the model's own bytes */
    int64_t extra;
} blob_header;

typedef struct record {
    uint64_t count, elem_size;
} record;

/* --- the table ----------------------------------------------------------- */

typedef enum row_kind {
    ROW_ARRAY,   /* elements copied as bytes */
    ROW_STRING,  /* NUL-terminated */
    ROW_STRINGS, /* an array of strings (char **) */
    ROW_STRUCTS, /* an array of structs, each with rows of its own */
} row_kind;

/* What every element must hold: anything; finite floats; floats within
 * the importer's bound (SKV_MAX_MAGNITUDE: it drops or replaces larger
 * key values, rest transforms and bone offsets, whose products overflow);
 * finite doubles; a vector key (a finite time, 3 bounded floats, then
 * its padding float, zero) or a rotation key (a finite time, 4 bounded
 * floats); an influence (an int, then a finite float). */
typedef enum row_values {
    VALUES_ANY,
    VALUES_FLOATS,
    VALUES_BOUNDED,
    VALUES_DOUBLES,
    VALUES_VEC3_KEY,
    VALUES_QUAT_KEY,
    VALUES_INFLUENCE
} row_values;

typedef struct blob_type blob_type;

/* Elements an array must have, from its owner (the struct holding the
 * pointer) and the model read so far; -1: the owner is malformed. */
typedef long long (*count_fn)(const void *owner, const skv_model *model);

typedef struct blob_row {
    const char *name;
    row_kind kind;
    size_t field;       /* offset of the pointer in its struct */
    size_t elem_size;   /* ROW_ARRAY, ROW_STRUCTS: bytes per element */
    ptrdiff_t count_at; /* offset of the owner's int count, or -1 (then `count`) */
    int per;            /* elements per counted item */
    count_fn count;
    row_values values;
    int nullable;          /* may be NULL although elements are due (bone_from_file) */
    const blob_type *type; /* ROW_STRUCTS: the element's rows */
} blob_row;

/* One field of a struct: where it is and how long. */
typedef struct field_span {
    size_t at, size;
} field_span;

struct blob_type {
    const char *name;
    size_t size;
    const blob_row *rows;
    int row_count;
    /* Every field, in order: the bytes between and after them are the
     * struct's padding, zero in a block (the writer clears it, the reader
     * refuses a struct where it is not). */
    const field_span *fields;
    int field_count;
};

/* One line per pointer field. */
#define ARRAY(T, f, count_field, per, values) \
    {#f, ROW_ARRAY, offsetof(T, f), sizeof *((T *)0)->f, offsetof(T, count_field), per, NULL, values, 0, NULL}
#define ARRAY_FN(T, f, fn, values, nullable) \
    {#f, ROW_ARRAY, offsetof(T, f), sizeof *((T *)0)->f, -1, 1, fn, values, nullable, NULL}
#define STRING(T, f, nullable) {#f, ROW_STRING, offsetof(T, f), 1, -1, 1, NULL, VALUES_ANY, nullable, NULL}
#define STRINGS(T, f, count_field, nullable_each) \
    {#f, ROW_STRINGS, offsetof(T, f), sizeof(uint64_t), offsetof(T, count_field), 1, NULL, VALUES_ANY, nullable_each, NULL}
#define STRUCTS(T, f, count_field, type) \
    {#f, ROW_STRUCTS, offsetof(T, f), sizeof *((T *)0)->f, offsetof(T, count_field), 1, NULL, VALUES_ANY, 0, &type}
#define TYPE(T, rows, fields) \
    {#T, sizeof(T), rows, (int)(sizeof rows / sizeof rows[0]), fields, (int)(sizeof fields / sizeof fields[0])}
#define FIELD(T, f) {offsetof(T, f), sizeof((T *)0)->f}

static long long influence_count(const void *owner, const skv_model *model)
{
    (void)owner;
    if (!model->influence_start || model->vertex_count < 0) return -1;
    return model->influence_start[model->vertex_count];
}

/* The importer allocates 3 floats more than the deltas (a 4-wide load of
 * the last one stays inside). */
static long long morph_delta_floats(const void *owner, const skv_model *model)
{
    (void)model;
    const skv_model *m = owner;
    return m->morph_delta_count < 0 ? -1 : (long long)m->morph_delta_count * 3 + 3;
}

static long long morph_channel_weights(const void *owner, const skv_model *model)
{
    const skv_morph_channel *ch = owner;
    if (ch->mesh < 0 || ch->mesh >= model->mesh_count || !model->meshes || ch->key_count < 0) return -1;
    return (long long)ch->key_count * model->meshes[ch->mesh].morph_target_count;
}

/* A cubic array's tangents: an in and an out per key (key.h); none for the
 * other modes (the row is nullable: blob_check ties them to the mode). */
static long long position_tangent_floats(const void *owner, const skv_model *model)
{
    (void)model;
    const skv_channel *ch = owner;
    return ch->position_count < 0 ? -1 : (long long)ch->position_count * 6;
}

static long long rotation_tangent_floats(const void *owner, const skv_model *model)
{
    (void)model;
    const skv_channel *ch = owner;
    return ch->rotation_count < 0 ? -1 : (long long)ch->rotation_count * 8;
}

static long long scale_tangent_floats(const void *owner, const skv_model *model)
{
    (void)model;
    const skv_channel *ch = owner;
    return ch->scale_count < 0 ? -1 : (long long)ch->scale_count * 6;
}

static long long morph_channel_tangents(const void *owner, const skv_model *model)
{
    long long weights = morph_channel_weights(owner, model);
    return weights < 0 ? -1 : weights * 2;
}

static long long vertex_slots(const void *owner, const skv_model *model)
{
    (void)owner;
    if (model->vertex_count < 0 || (model->influence_slots != 4 && model->influence_slots != 8)) return -1;
    return (long long)model->vertex_count * model->influence_slots;
}

/* 4 floats per vertex (model.h); the array is NULL without normal maps. */
static long long vertex_tangent_floats(const void *owner, const skv_model *model)
{
    (void)owner;
    return model->vertex_count < 0 ? -1 : (long long)model->vertex_count * 4;
}

static long long vertex_count_plus_one(const void *owner, const skv_model *model)
{
    (void)owner;
    return model->vertex_count < 0 ? -1 : (long long)model->vertex_count + 1;
}

static long long node_channel_count(const void *owner, const skv_model *model)
{
    (void)owner;
    return model->skeleton.node_count;
}

static long long bone_count(const void *owner, const skv_model *model)
{
    (void)owner;
    return model->skeleton.bone_count;
}

static long long texel_bytes(const void *owner, const skv_model *model)
{
    (void)model;
    const skv_texture *t = owner;
    if (t->width < 0 || t->height < 0 || t->width > BLOB_MAX_TEXTURE_SIDE || t->height > BLOB_MAX_TEXTURE_SIDE)
        return -1;
    return (long long)t->width * t->height * 4;
}

static const blob_row mesh_rows[] = {
    STRING(skv_mesh, name, 0),
};
static const blob_row material_rows[] = {
    STRING(skv_material, name, 0),
    STRING(skv_material, texture_paths[SKV_TEX_BASE_COLOR], 1),
    STRING(skv_material, texture_paths[SKV_TEX_METAL_ROUGH], 1),
    STRING(skv_material, texture_paths[SKV_TEX_NORMAL], 1),
    STRING(skv_material, texture_paths[SKV_TEX_OCCLUSION], 1),
    STRING(skv_material, texture_paths[SKV_TEX_EMISSIVE], 1),
};
static const blob_row texture_rows[] = {
    ARRAY_FN(skv_texture, rgba, texel_bytes, VALUES_ANY, 1),
    STRING(skv_texture, file, 1),
};
static const blob_row channel_rows[] = {
    ARRAY(skv_channel, positions, position_count, 1, VALUES_VEC3_KEY),
    ARRAY(skv_channel, rotations, rotation_count, 1, VALUES_QUAT_KEY),
    ARRAY(skv_channel, scales, scale_count, 1, VALUES_VEC3_KEY),
    ARRAY_FN(skv_channel, position_tangents, position_tangent_floats, VALUES_FLOATS, 1),
    ARRAY_FN(skv_channel, rotation_tangents, rotation_tangent_floats, VALUES_FLOATS, 1),
    ARRAY_FN(skv_channel, scale_tangents, scale_tangent_floats, VALUES_FLOATS, 1),
};
static const blob_row morph_channel_rows[] = {
    ARRAY(skv_morph_channel, times, key_count, 1, VALUES_DOUBLES),
    ARRAY_FN(skv_morph_channel, weights, morph_channel_weights, VALUES_FLOATS, 0),
    ARRAY_FN(skv_morph_channel, tangents, morph_channel_tangents, VALUES_FLOATS, 1),
};
/* Every field of each struct, in order (blob_type.fields): a field
 * added to model.h needs its line here too, or it reads as padding,
 * cleared by the writer (test_blob: a trusted model's padding is zero,
 * blob_padding_clean, which a missing field with a value fails). */
static const field_span channel_fields[] = {
    FIELD(skv_channel, node),      FIELD(skv_channel, position_count), FIELD(skv_channel, rotation_count),
    FIELD(skv_channel, scale_count), FIELD(skv_channel, position_mode), FIELD(skv_channel, rotation_mode),
    FIELD(skv_channel, scale_mode), FIELD(skv_channel, positions),    FIELD(skv_channel, rotations),
    FIELD(skv_channel, scales),    FIELD(skv_channel, position_tangents), FIELD(skv_channel, rotation_tangents),
    FIELD(skv_channel, scale_tangents),
};
static const field_span morph_channel_fields[] = {
    FIELD(skv_morph_channel, mesh), FIELD(skv_morph_channel, key_count), FIELD(skv_morph_channel, mode),
    FIELD(skv_morph_channel, times), FIELD(skv_morph_channel, weights), FIELD(skv_morph_channel, tangents),
};
static const field_span clip_fields[] = {
    FIELD(skv_clip, name),          FIELD(skv_clip, duration_ticks), FIELD(skv_clip, ticks_per_second),
    FIELD(skv_clip, channel_count), FIELD(skv_clip, channels),       FIELD(skv_clip, node_channel),
    FIELD(skv_clip, merged_from),   FIELD(skv_clip, morph_channel_count), FIELD(skv_clip, morph_channels),
    FIELD(skv_clip, notes),         FIELD(skv_clip, source),         FIELD(skv_clip, file_channels),
    FIELD(skv_clip, retarget_node_count), FIELD(skv_clip, retarget_from),
};
static const field_span mesh_fields[] = {
    FIELD(skv_mesh, name),          FIELD(skv_mesh, base_vertex),        FIELD(skv_mesh, vertex_count),
    FIELD(skv_mesh, first_index),   FIELD(skv_mesh, index_count),        FIELD(skv_mesh, material),
    FIELD(skv_mesh, node),          FIELD(skv_mesh, skinned),            FIELD(skv_mesh, bone_count),
    FIELD(skv_mesh, max_influences), FIELD(skv_mesh, over_limit_vertices), FIELD(skv_mesh, unweighted_vertices),
    FIELD(skv_mesh, morph_target_count), FIELD(skv_mesh, first_morph_target), FIELD(skv_mesh, morph_delta_base),
};
static const field_span material_fields[] = {
    FIELD(skv_material, name),         FIELD(skv_material, diffuse),      FIELD(skv_material, texture),
    FIELD(skv_material, shading),      FIELD(skv_material, metallic),     FIELD(skv_material, roughness),
    FIELD(skv_material, emissive),     FIELD(skv_material, normal_scale), FIELD(skv_material, occlusion_strength),
    FIELD(skv_material, alpha_mode),   FIELD(skv_material, alpha_cutoff), FIELD(skv_material, double_sided),
    FIELD(skv_material, textures),     FIELD(skv_material, texture_paths), FIELD(skv_material, uv_transformed),
    FIELD(skv_material, uv_transform),
};
static const field_span texture_fields[] = {
    FIELD(skv_texture, width), FIELD(skv_texture, height), FIELD(skv_texture, rgba), FIELD(skv_texture, file),
};
static const field_span model_fields[] = {
    FIELD(skv_model, path),
    FIELD(skv_model, vertex_count),
    FIELD(skv_model, positions),
    FIELD(skv_model, normals),
    FIELD(skv_model, uvs),
    FIELD(skv_model, tangents),
    FIELD(skv_model, influence_slots),
    FIELD(skv_model, influence_lists),
    FIELD(skv_model, influence_lists_auto),
    FIELD(skv_model, bone_ids),
    FIELD(skv_model, weights),
    FIELD(skv_model, influence_start),
    FIELD(skv_model, influences),
    FIELD(skv_model, index_count),
    FIELD(skv_model, indices),
    FIELD(skv_model, mesh_count),
    FIELD(skv_model, meshes),
    FIELD(skv_model, material_count),
    FIELD(skv_model, materials),
    FIELD(skv_model, texture_count),
    FIELD(skv_model, textures),
    FIELD(skv_model, morph_target_count),
    FIELD(skv_model, morph_target_names),
    FIELD(skv_model, morph_default_weights),
    FIELD(skv_model, morph_delta_count),
    FIELD(skv_model, morph_position_deltas),
    FIELD(skv_model, morph_normal_deltas),
    FIELD(skv_model, skeleton.node_count),
    FIELD(skv_model, skeleton.node_names),
    FIELD(skv_model, skeleton.parents),
    FIELD(skv_model, skeleton.rest_local),
    FIELD(skv_model, skeleton.bone_count),
    FIELD(skv_model, skeleton.bone_names),
    FIELD(skv_model, skeleton.bone_node),
    FIELD(skv_model, skeleton.bone_offset),
    FIELD(skv_model, skeleton.bone_from_file),
    FIELD(skv_model, file_bone_count),
    FIELD(skv_model, clip_count),
    FIELD(skv_model, clips),
    FIELD(skv_model, skeleton_only),
    FIELD(skv_model, global_inverse),
    FIELD(skv_model, upright),
    FIELD(skv_model, warning_count),
    FIELD(skv_model, warnings),
    FIELD(skv_model, block),
    FIELD(skv_model, block_size),
};

static const blob_type channel_type = TYPE(skv_channel, channel_rows, channel_fields);
static const blob_type morph_channel_type = TYPE(skv_morph_channel, morph_channel_rows, morph_channel_fields);
static const blob_row clip_rows[] = {
    STRING(skv_clip, name, 0),
    STRUCTS(skv_clip, channels, channel_count, channel_type),
    ARRAY_FN(skv_clip, node_channel, node_channel_count, VALUES_ANY, 0),
    STRUCTS(skv_clip, morph_channels, morph_channel_count, morph_channel_type),
    STRING(skv_clip, source, 1),
    STRINGS(skv_clip, retarget_from, retarget_node_count, 1),
};
static const blob_type mesh_type = TYPE(skv_mesh, mesh_rows, mesh_fields);
static const blob_type material_type = TYPE(skv_material, material_rows, material_fields);
static const blob_type texture_type = TYPE(skv_texture, texture_rows, texture_fields);
static const blob_type clip_type = TYPE(skv_clip, clip_rows, clip_fields);

/* In order: an array's count may depend on one read before it
 * (influences on influence_start, a morph channel's weights on meshes). */
static const blob_row model_rows[] = {
    STRING(skv_model, path, 1),
    ARRAY(skv_model, positions, vertex_count, 3, VALUES_FLOATS),
    ARRAY(skv_model, normals, vertex_count, 3, VALUES_FLOATS),
    ARRAY(skv_model, uvs, vertex_count, 2, VALUES_FLOATS),
    ARRAY_FN(skv_model, tangents, vertex_tangent_floats, VALUES_FLOATS, 1),
    ARRAY_FN(skv_model, bone_ids, vertex_slots, VALUES_ANY, 0),
    ARRAY_FN(skv_model, weights, vertex_slots, VALUES_FLOATS, 0),
    ARRAY_FN(skv_model, influence_start, vertex_count_plus_one, VALUES_ANY, 0),
    ARRAY_FN(skv_model, influences, influence_count, VALUES_INFLUENCE, 0),
    ARRAY(skv_model, indices, index_count, 1, VALUES_ANY),
    STRUCTS(skv_model, meshes, mesh_count, mesh_type),
    STRUCTS(skv_model, materials, material_count, material_type),
    STRUCTS(skv_model, textures, texture_count, texture_type),
    STRINGS(skv_model, morph_target_names, morph_target_count, 1),
    ARRAY(skv_model, morph_default_weights, morph_target_count, 1, VALUES_FLOATS),
    ARRAY_FN(skv_model, morph_position_deltas, morph_delta_floats, VALUES_FLOATS, 1),
    ARRAY_FN(skv_model, morph_normal_deltas, morph_delta_floats, VALUES_FLOATS, 1),
    STRINGS(skv_model, skeleton.node_names, skeleton.node_count, 0),
    ARRAY(skv_model, skeleton.parents, skeleton.node_count, 1, VALUES_ANY),
    ARRAY(skv_model, skeleton.rest_local, skeleton.node_count, 1, VALUES_BOUNDED),
    STRINGS(skv_model, skeleton.bone_names, skeleton.bone_count, 0),
    ARRAY(skv_model, skeleton.bone_node, skeleton.bone_count, 1, VALUES_ANY),
    ARRAY(skv_model, skeleton.bone_offset, skeleton.bone_count, 1, VALUES_BOUNDED),
    ARRAY_FN(skv_model, skeleton.bone_from_file, bone_count, VALUES_ANY, 1),
    STRUCTS(skv_model, clips, clip_count, clip_type),
    STRINGS(skv_model, warnings, warning_count, 0),
};
static const blob_type model_type = TYPE(skv_model, model_rows, model_fields);

/* A struct's padding, run by run: before field f (f < field_count), or
 * after the last (f == field_count); `from` is where the field before
 * ends. Returns the run's end, the next field's start. */
static size_t padding_run(const blob_type *type, int f, size_t *from)
{
    if (f > 0) {
        size_t end = type->fields[f - 1].at + type->fields[f - 1].size;
        if (end > *from) *from = end;
    }
    return f < type->field_count ? type->fields[f].at : type->size;
}

static void clear_padding(const blob_type *type, unsigned char *image)
{
    size_t at = 0;
    for (int f = 0; f <= type->field_count; f++)
        for (size_t end = padding_run(type, f, &at); at < end; at++) image[at] = 0;
}

/* Is the padding of the struct at `image` all zero? */
static int padding_zero(const blob_type *type, const unsigned char *image)
{
    unsigned char seen = 0;
    size_t at = 0;
    for (int f = 0; f <= type->field_count; f++)
        for (size_t end = padding_run(type, f, &at); at < end; at++) seen |= image[at];
    return seen == 0;
}

/* Elements `row` must have in `owner`; -1 if the owner's count is bad. */
static long long row_count(const blob_row *row, const void *owner, const skv_model *model)
{
    if (row->count) return row->count(owner, model);
    int n;
    memcpy(&n, (const char *)owner + row->count_at, sizeof n);
    if (n < 0) return -1;
    return (long long)n * row->per;
}

/* FNV-1a over the types' sizes and rows: a block from another build (or
 * another table) is refused by its header. */
static void hash_bytes(uint32_t *h, const void *bytes, size_t size)
{
    for (size_t i = 0; i < size; i++) *h = (*h ^ ((const unsigned char *)bytes)[i]) * 16777619u;
}

static void hash_type(uint32_t *h, const blob_type *type)
{
    uint64_t size = type->size;
    hash_bytes(h, &size, sizeof size);
    for (int r = 0; r < type->row_count; r++) {
        const blob_row *row = &type->rows[r];
        uint64_t facts[4] = {row->kind, row->field, row->elem_size, (uint64_t)row->count_at};
        hash_bytes(h, facts, sizeof facts);
        hash_bytes(h, row->name, strlen(row->name));
        if (row->type) hash_type(h, row->type);
    }
}

static uint32_t blob_layout(void)
{
    uint32_t h = 2166136261u;
    hash_type(&h, &model_type);
    return h;
}

/* --- writing -------------------------------------------------------------- */

/* The block is written front to back, each struct after the records it
 * points to (so every offset is known when its struct is written), twice:
 * once only measuring (the header needs the total), then for real, into a
 * block of exactly that size or straight to a descriptor. To a descriptor
 * the big arrays go from the model's own memory (no copy); the small
 * pieces (heads, struct images, strings) through a staging buffer. */
enum { STAGE_BYTES = 1 << 16 };

typedef struct writer {
    size_t size;          /* written so far: the offset of what comes next */
    int measuring;        /* only counting */
    unsigned char *block; /* into memory, `capacity` bytes; or NULL */
    size_t capacity;
    int fd;               /* else to this descriptor */
    unsigned char *stage; /* STAGE_BYTES, for the descriptor */
    size_t staged;
    int failed, error;    /* error: an errno value, 0 for memory */
    uint64_t model_at;    /* where the model's own bytes went */
} writer;

static void flush_stage(writer *w)
{
    for (size_t done = 0; done < w->staged && !w->failed;) {
        ssize_t put = write(w->fd, w->stage + done, w->staged - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) w->failed = 1, w->error = put < 0 ? errno : EIO;
        else done += (size_t)put;
    }
    w->staged = 0;
}

static void put(writer *w, const void *data, size_t n)
{
    if (w->failed || n == 0) return;
    if (w->measuring) {
        w->size += n;
        return;
    }
    if (w->block) {
        if (n > w->capacity - w->size) {
            w->failed = 1;
            return;
        }
        memcpy(w->block + w->size, data, n);
        w->size += n;
        return;
    }
    w->size += n;
    if (n <= STAGE_BYTES - w->staged) {
        memcpy(w->stage + w->staged, data, n);
        w->staged += n;
        return;
    }
    flush_stage(w);
    if (n <= STAGE_BYTES) {
        memcpy(w->stage, data, n);
        w->staged = n;
        return;
    }
    for (const unsigned char *p = data; n > 0 && !w->failed;) {
        ssize_t written = write(w->fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) w->failed = 1, w->error = written < 0 ? errno : EIO;
        else p += written, n -= (size_t)written;
    }
}

static void pad(writer *w)
{
    static const unsigned char zeros[8];
    put(w, zeros, (8 - w->size % 8) % 8);
}

/* Starts a record; returns its offset (never 0: the header is first). */
static uint64_t record_head(writer *w, uint64_t count, uint64_t elem_size)
{
    pad(w);
    uint64_t at = w->size;
    record head = {count, elem_size};
    put(w, &head, sizeof head);
    return at;
}

static uint64_t write_row(writer *w, const blob_row *row, const void *owner, const skv_model *model);

/* Writes what `type`'s rows point to for each of the `count` structs at
 * `src`, then the structs themselves with those offsets in place of the
 * pointers; returns the offset of `image_at` (the structs' own record, or
 * with `bare` the bytes of one struct without a record head). */
static uint64_t write_structs(writer *w, const blob_type *type, const void *src, size_t count,
                              const skv_model *model, int bare)
{
    unsigned char *images = malloc(count ? count * type->size : 1);
    if (!images) {
        w->failed = 1;
        return 0;
    }
    memcpy(images, src, count * type->size);
    if (type == &model_type) {
        /* Not sent (this process's mapping); zero: a block is the same
         * bytes each time it is written. */
        skv_model *image = (skv_model *)images;
        image->block = NULL, image->block_size = 0;
    }
    /* Whatever the compiler's padding held in this process: zero, as the
     * reader wants it. */
    for (size_t i = 0; i < count; i++) clear_padding(type, images + i * type->size);
    for (size_t i = 0; i < count && !w->failed; i++)
        for (int r = 0; r < type->row_count; r++) {
            const blob_row *row = &type->rows[r];
            uint64_t offset = write_row(w, row, (const char *)src + i * type->size, model);
            memcpy(images + i * type->size + row->field, &offset, sizeof offset);
        }
    uint64_t at;
    if (bare) {
        pad(w);
        at = w->size;
    } else {
        at = record_head(w, count, type->size);
    }
    put(w, images, count * type->size);
    free(images);
    return at;
}

/* The record a pointer field stands for; 0 for NULL. */
static uint64_t write_row(writer *w, const blob_row *row, const void *owner, const skv_model *model)
{
    const void *ptr;
    memcpy(&ptr, (const char *)owner + row->field, sizeof ptr);
    if (!ptr || w->failed) return 0;
    long long count = row->kind == ROW_STRING ? (long long)strlen(ptr) + 1 : row_count(row, owner, model);
    if (count < 0) count = 0;
    uint64_t at = 0;
    if (row->kind == ROW_ARRAY || row->kind == ROW_STRING) {
        at = record_head(w, (uint64_t)count, row->elem_size);
        put(w, ptr, (size_t)count * row->elem_size);
    } else if (row->kind == ROW_STRINGS) {
        uint64_t *offsets = malloc(count ? (size_t)count * sizeof *offsets : 1);
        if (!offsets) {
            w->failed = 1;
            return 0;
        }
        for (long long i = 0; i < count; i++) {
            const char *s = ((char *const *)ptr)[i];
            offsets[i] = 0;
            if (s) {
                offsets[i] = record_head(w, strlen(s) + 1, 1);
                put(w, s, strlen(s) + 1);
            }
        }
        at = record_head(w, (uint64_t)count, sizeof *offsets);
        put(w, offsets, (size_t)count * sizeof *offsets);
        free(offsets);
    } else { /* ROW_STRUCTS */
        at = write_structs(w, row->type, ptr, (size_t)count, model, 0);
    }
    return at;
}

/* One pass: the header, then everything, the model's own bytes last. */
static void write_model(writer *w, const skv_model *model, int64_t extra, uint64_t total, uint64_t model_at)
{
    blob_header head = {.version = BLOB_VERSION, .layout = blob_layout(), .size = total, .model = model_at,
                        .extra = extra};
    memcpy(head.magic, blob_magic, sizeof head.magic);
    put(w, &head, sizeof head);
    w->model_at = write_structs(w, &model_type, model, 1, model, 1);
}

/* Measures the block: its size and where the model's own bytes go. */
static int measure(const skv_model *model, uint64_t *total, uint64_t *model_at)
{
    writer m = {.measuring = 1};
    write_model(&m, model, 0, 0, 0);
    *total = m.size;
    *model_at = m.model_at;
    return m.failed ? -1 : 0;
}

uint64_t blob_size(const skv_model *model)
{
    uint64_t total, model_at;
    return measure(model, &total, &model_at) == 0 ? total : 0;
}

skv_result blob_write(const skv_model *model, int64_t extra, unsigned char **bytes, size_t *size, skv_error *err)
{
    uint64_t total, model_at;
    if (measure(model, &total, &model_at) != 0) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    writer w = {.block = malloc(total), .capacity = total};
    if (w.block) write_model(&w, model, extra, total, model_at);
    if (!w.block || w.failed || w.size != total) {
        free(w.block);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    *bytes = w.block;
    *size = w.size;
    return SKV_OK;
}

skv_result blob_write_fd(const skv_model *model, int64_t extra, int fd, int *error, skv_error *err)
{
    *error = 0;
    uint64_t total, model_at;
    if (measure(model, &total, &model_at) != 0) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    writer w = {.fd = fd, .stage = malloc(STAGE_BYTES)};
    if (!w.stage) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    write_model(&w, model, extra, total, model_at);
    flush_stage(&w);
    free(w.stage);
    if (w.failed || w.size != total) {
        *error = w.error;
        return w.error ? skv_fail(err, SKV_ERR_IMPORT, "cannot hand the model over: %s", strerror(w.error))
                       : skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    return SKV_OK;
}

/* --- reading -------------------------------------------------------------- */

typedef struct reader {
    const unsigned char *bytes;
    size_t size;
    skv_error *err;
    int failed;
    int in_place; /* blob_adopt: big vertex arrays stay in the block */
} reader;

/* Arrays blob_adopt leaves in the block: the model's vertex arrays and
 * its clips' keys, the bulk of a big model (a mocap clip's keys: MBs in
 * thousands of arrays, each a fresh allocation to fault in if copied),
 * never resized or freed alone (model.h), and textures' texels. Not the
 * skeleton (the importer grows its bone arrays).
 * Small vertex arrays are copied; keys of every size stay, never empty:
 * a pointer never points at the block's end. */
enum { ADOPT_MIN_BYTES = 4096 };
static int adoptable(const reader *rd, const blob_type *type, const blob_row *row, uint64_t bytes)
{
    static const size_t fields[] = {
        offsetof(skv_model, positions),       offsetof(skv_model, normals),    offsetof(skv_model, uvs),
        offsetof(skv_model, tangents),        offsetof(skv_model, bone_ids),   offsetof(skv_model, weights),
        offsetof(skv_model, influence_start), offsetof(skv_model, influences), offsetof(skv_model, indices),
        offsetof(skv_model, morph_position_deltas), offsetof(skv_model, morph_normal_deltas),
    };
    if (!rd->in_place || row->kind != ROW_ARRAY || bytes == 0) return 0;
    if (type == &channel_type || type == &morph_channel_type) return 1; /* every row of theirs is keys */
    if (type == &texture_type) return row->field == offsetof(skv_texture, rgba); /* texels: the biggest of all */
    if (type != &model_type || bytes < ADOPT_MIN_BYTES) return 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (row->field == fields[i]) return 1;
    return 0;
}

/* Does `p` point into the block (an adopted array)? */
static int in_block(const reader *rd, const void *p)
{
    return rd->in_place && (uintptr_t)p >= (uintptr_t)rd->bytes && (uintptr_t)p - (uintptr_t)rd->bytes < rd->size;
}

static void refuse(reader *rd, const char *what, const char *detail)
{
    if (rd->failed) return;
    rd->failed = 1;
    skv_fail(rd->err, SKV_ERR_IMPORT, "the guarded import's model is malformed: %s%s%s", what, detail ? " " : "",
             detail ? detail : "");
}

/* The record at `offset`, checked to lie inside the block with exactly
 * `count` elements of `elem_size` bytes (count -1: any); its elements'
 * start, or NULL (and `rd` failed). */
static const unsigned char *record_at(reader *rd, uint64_t offset, long long count, uint64_t elem_size,
                                      uint64_t *got, const char *name)
{
    record head;
    if (offset % 8 || offset < sizeof(blob_header) || offset > rd->size || rd->size - offset < sizeof head) {
        refuse(rd, name, "points outside the block");
        return NULL;
    }
    memcpy(&head, rd->bytes + offset, sizeof head);
    if (head.elem_size != elem_size) {
        refuse(rd, name, "has the wrong element size");
        return NULL;
    }
    if ((count >= 0 && head.count != (uint64_t)count) || head.count > (uint64_t)INT_MAX * 8) {
        refuse(rd, name, "has the wrong count");
        return NULL;
    }
    uint64_t room = rd->size - offset - sizeof head;
    if (elem_size && head.count > room / elem_size) {
        refuse(rd, name, "runs past the block");
        return NULL;
    }
    /* The padding to the next record: zeros (the writer's pad). */
    const unsigned char *data = rd->bytes + offset + sizeof head;
    uint64_t used = head.count * elem_size, padded = (used + 7) & ~(uint64_t)7;
    unsigned char seen = 0;
    for (uint64_t i = used; i < padded && i < room; i++) seen |= data[i];
    if (seen) {
        refuse(rd, name, "has padding that is not zero");
        return NULL;
    }
    *got = head.count;
    return data;
}

/* Are all `count` floats at `p` finite? (All exponent bits set: inf or
 * NaN.) A model's vertex arrays are most of the block, so two floats per
 * 64-bit word and no branch: adding the lowest exponent bit to a float's
 * exponent bits carries into its sign bit only when they are all set,
 * and never into the other half of the word. */
static int floats_finite(const unsigned char *p, size_t count)
{
    const uint64_t exponents = 0x7f8000007f800000ull, lowest = 0x0080000000800000ull;
    uint64_t bad = 0;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint64_t words[4];
        memcpy(words, p + i * sizeof(float), sizeof words);
        for (int k = 0; k < 4; k++) bad |= (words[k] & exponents) + lowest;
    }
    for (; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, p + i * sizeof bits, sizeof bits);
        bad |= (bits & 0x7f800000u) + 0x00800000u;
    }
    return !(bad & 0x8000000080000000ull);
}

/* The bits of SKV_MAX_MAGNITUDE: a float's bits without the sign are at
 * most these exactly when it lies within the bound (inf and NaN are
 * above), so a bound is one unsigned maximum over the bits. */
static uint32_t magnitude_bits(void)
{
    float bound = SKV_MAX_MAGNITUDE;
    uint32_t bits;
    memcpy(&bits, &bound, sizeof bits);
    return bits;
}

/* Are all `count` floats at `p` within SKV_MAX_MAGNITUDE? */
static int floats_bounded(const unsigned char *p, size_t count)
{
    uint32_t top = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, p + i * sizeof bits, sizeof bits);
        bits &= 0x7fffffffu;
        top = bits > top ? bits : top;
    }
    return top <= magnitude_bits();
}

/* A clip's keys, the block's longest arrays after the vertices', in
 * one pass without a branch: each time's exponent bits (finite), the
 * largest of the values' bits without their sign (within
 * SKV_MAX_MAGNITUDE), a vector key's padding float's bits (zero). */
_Static_assert(sizeof(skv_vec3_key) == sizeof(skv_quat_key) && offsetof(skv_vec3_key, value) == sizeof(double) &&
                   offsetof(skv_quat_key, value) == sizeof(double) && offsetof(skv_vec3_key, zero) == 20,
               "keys_ok reads both kinds of key as a double and 4 floats");
static int keys_ok(const unsigned char *p, size_t count, int vec3)
{
    uint64_t bad = 0;
    uint32_t top = 0, pad = 0;
    for (size_t i = 0; i < count; i++, p += sizeof(skv_quat_key)) {
        uint64_t time;
        uint32_t v[4];
        memcpy(&time, p, sizeof time);
        memcpy(v, p + sizeof time, sizeof v);
        bad |= (time & 0x7ff0000000000000ull) + 0x0010000000000000ull; /* bit 63: inf or NaN */
        for (int k = 0; k < 3; k++) top = (v[k] & 0x7fffffffu) > top ? v[k] & 0x7fffffffu : top;
        uint32_t last = vec3 ? 0 : v[3] & 0x7fffffffu;
        top = last > top ? last : top;
        pad |= vec3 ? v[3] : 0;
    }
    return !(bad >> 63) && top <= magnitude_bits() && pad == 0;
}

/* As floats_finite, for elements that mix types: per element, the
 * double's exponent bits (VALUES_DOUBLES) and each float's after it,
 * gathered without a branch: a model's influences are the block's other
 * long array; the keys are keys_ok's. */
static int values_ok(const void *data, size_t count, size_t elem_size, row_values values)
{
    const unsigned char *p = data;
    if (values == VALUES_FLOATS && elem_size % sizeof(float) == 0)
        return floats_finite(p, count * (elem_size / sizeof(float)));
    if (values == VALUES_BOUNDED && elem_size % sizeof(float) == 0)
        return floats_bounded(p, count * (elem_size / sizeof(float)));
    if ((values == VALUES_VEC3_KEY || values == VALUES_QUAT_KEY) && elem_size == sizeof(skv_quat_key))
        return keys_ok(p, count, values == VALUES_VEC3_KEY);
    size_t floats_at;
    if (values == VALUES_DOUBLES) floats_at = sizeof(double);
    else if (values == VALUES_INFLUENCE) floats_at = offsetof(skv_influence, weight);
    else return values == VALUES_ANY;
    size_t floats = values == VALUES_DOUBLES ? 0 : (elem_size - floats_at) / sizeof(float);
    uint64_t bad = 0;
    for (size_t i = 0; i < count; i++, p += elem_size) {
        if (floats_at == sizeof(double)) {
            uint64_t bits;
            memcpy(&bits, p, sizeof bits);
            bad |= (bits & 0x7ff0000000000000ull) + 0x0010000000000000ull; /* bit 63: inf or NaN */
        }
        for (size_t f = 0; f < floats; f++) {
            uint32_t bits;
            memcpy(&bits, p + floats_at + f * sizeof bits, sizeof bits);
            bad |= (uint64_t)((bits & 0x7f800000u) + 0x00800000u) << 32; /* bit 31 -> 63 */
        }
    }
    return !(bad >> 63);
}

/* A copy of the string record at `offset`, or NULL (and `rd` failed). */
static char *read_string(reader *rd, uint64_t offset, const char *name)
{
    uint64_t n = 0;
    const unsigned char *s = record_at(rd, offset, -1, 1, &n, name);
    if (!s) return NULL;
    if (n == 0 || s[n - 1] != '\0' || memchr(s, '\0', n - 1)) {
        refuse(rd, name, "is not a terminated string (or has a NUL inside)");
        return NULL;
    }
    if (n > BLOB_MAX_STRING) {
        refuse(rd, name, "is too long a string");
        return NULL;
    }
    char *copy = malloc(n);
    if (!copy) refuse(rd, name, "does not fit in memory");
    else memcpy(copy, s, n);
    return copy;
}

static void set_ptr(void *dst, size_t field, const void *ptr)
{
    memcpy((char *)dst + field, &ptr, sizeof ptr);
}

static void *get_ptr(const void *src, size_t field)
{
    void *ptr;
    memcpy(&ptr, (const char *)src + field, sizeof ptr);
    return ptr;
}

/* Every pointer field of a struct whose bytes came from the block is
 * first set to NULL, so a struct read half-way frees cleanly. */
static void clear_pointers(const blob_type *type, void *dst)
{
    for (int r = 0; r < type->row_count; r++) set_ptr(dst, type->rows[r].field, NULL);
}

static void free_rows(const reader *rd, const blob_type *type, void *dst)
{
    for (int r = 0; r < type->row_count; r++) {
        const blob_row *row = &type->rows[r];
        void *ptr = get_ptr(dst, row->field);
        if (!ptr) continue;
        if (row->kind == ROW_STRINGS || row->kind == ROW_STRUCTS) {
            int n;
            memcpy(&n, (const char *)dst + row->count_at, sizeof n); /* == what was allocated: checked before */
            for (int i = 0; i < n; i++) {
                if (row->kind == ROW_STRINGS) free(((char **)ptr)[i]);
                else free_rows(rd, row->type, (char *)ptr + (size_t)i * row->type->size);
            }
        }
        if (!in_block(rd, ptr)) free(ptr);
        set_ptr(dst, row->field, NULL);
    }
}

/* `dst` holds the struct's bytes from the block, pointers cleared;
 * `image` is where those bytes are in the block. */
static void read_rows(reader *rd, const blob_type *type, const unsigned char *image, void *dst, skv_model *model)
{
    for (int r = 0; r < type->row_count && !rd->failed; r++) {
        const blob_row *row = &type->rows[r];
        uint64_t offset;
        memcpy(&offset, image + row->field, sizeof offset);
        long long count = row->kind == ROW_STRING ? -1 : row_count(row, dst, model);
        if (row->kind != ROW_STRING && count < 0) {
            refuse(rd, row->name, "has a negative or malformed count");
            return;
        }
        if (offset == 0) {
            /* NULL: fine for an optional field, and for an empty array
             * (its readers never look); not where elements are due. */
            if (!row->nullable && row->kind != ROW_STRING && count > 0) refuse(rd, row->name, "is missing");
            if (!row->nullable && row->kind == ROW_STRING) refuse(rd, row->name, "is missing");
            continue;
        }
        if (row->kind == ROW_STRING) {
            set_ptr(dst, row->field, read_string(rd, offset, row->name));
            continue;
        }
        uint64_t n = 0;
        const unsigned char *data = record_at(rd, offset, count, row->elem_size, &n, row->name);
        if (!data) return;
        if (row->kind == ROW_ARRAY && !values_ok(data, n, row->elem_size, row->values)) {
            refuse(rd, row->name,
                   row->values == VALUES_FLOATS || row->values == VALUES_DOUBLES || row->values == VALUES_INFLUENCE
                       ? "holds a value that is not finite"
                       : "holds a value that is not finite, past 1e15, or padding that is not zero");
            return;
        }
        if (adoptable(rd, type, row, n * row->elem_size)) {
            set_ptr(dst, row->field, data);
            continue;
        }
        /* At least one element: the importer's arrays are never NULL for
         * an empty model (the stick figure of no joints keeps one). Not
         * cleared where the block's bytes fill it (a clip's keys: MBs). */
        size_t elem = row->elem_size ? row->elem_size : 1;
        void *copy = n && row->elem_size && row->kind != ROW_STRINGS ? malloc(n * elem) : calloc(n ? n : 1, elem);
        if (!copy) {
            refuse(rd, row->name, "does not fit in memory");
            return;
        }
        if (row->kind == ROW_ARRAY) {
            memcpy(copy, data, n * row->elem_size);
            set_ptr(dst, row->field, copy);
        } else if (row->kind == ROW_STRINGS) {
            set_ptr(dst, row->field, copy);
            for (uint64_t i = 0; i < n && !rd->failed; i++) {
                uint64_t at;
                memcpy(&at, data + i * sizeof at, sizeof at);
                if (at) ((char **)copy)[i] = read_string(rd, at, row->name);
                else if (!row->nullable) refuse(rd, row->name, "has a missing string");
            }
        } else { /* ROW_STRUCTS */
            for (uint64_t i = 0; i < n; i++)
                if (!padding_zero(row->type, data + i * row->elem_size)) {
                    free(copy);
                    refuse(rd, row->name, "has padding that is not zero");
                    return;
                }
            memcpy(copy, data, n * row->elem_size);
            for (uint64_t i = 0; i < n; i++) clear_pointers(row->type, (char *)copy + i * row->elem_size);
            set_ptr(dst, row->field, copy);
            for (uint64_t i = 0; i < n && !rd->failed; i++)
                read_rows(rd, row->type, data + i * row->elem_size, (char *)copy + i * row->elem_size, model);
        }
    }
}

/* blob_read and blob_adopt: `in_place` leaves the big vertex arrays in
 * the block. */
static skv_result read_block(const unsigned char *bytes, size_t size, int in_place, skv_model *model, int64_t *extra,
                             skv_error *err)
{
    memset(model, 0, sizeof *model);
    blob_header head;
    if (size < sizeof head) return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is malformed: too short");
    memcpy(&head, bytes, sizeof head);
    if (memcmp(head.magic, blob_magic, sizeof blob_magic) != 0 || head.version != BLOB_VERSION ||
        head.layout != blob_layout())
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is malformed: wrong magic, version or layout");
    if (head.size != size || head.model % 8 || head.model < sizeof head || head.model > size ||
        size - head.model < sizeof *model)
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is malformed: wrong sizes");
    reader rd = {bytes, size, err, 0, in_place};
    const unsigned char *image = bytes + head.model;
    if (!padding_zero(&model_type, image))
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is malformed: padding that is not zero");
    memcpy(model, image, sizeof *model);
    clear_pointers(&model_type, model);
    /* Not a row (not sent): the sender's own block means nothing here. */
    model->block = NULL, model->block_size = 0;
    read_rows(&rd, &model_type, image, model, model);
    if (!rd.failed && blob_check(model, err) != SKV_OK) rd.failed = 1;
    if (rd.failed) {
        free_rows(&rd, &model_type, model);
        memset(model, 0, sizeof *model);
        return SKV_ERR_IMPORT;
    }
    if (in_place) model->block = (void *)bytes, model->block_size = size;
    if (extra) *extra = head.extra;
    return SKV_OK;
}

skv_result blob_read(const unsigned char *bytes, size_t size, skv_model *model, int64_t *extra, skv_error *err)
{
    return read_block(bytes, size, 0, model, extra, err);
}

skv_result blob_adopt(void *mapped, size_t size, skv_model *model, int64_t *extra, skv_error *err)
{
    return read_block(mapped, size, 1, model, extra, err);
}

int blob_padding_clean(const skv_model *model)
{
    int clean = padding_zero(&model_type, (const unsigned char *)model);
    for (int m = 0; m < model->mesh_count; m++) clean &= padding_zero(&mesh_type, (const void *)&model->meshes[m]);
    for (int t = 0; t < model->material_count; t++)
        clean &= padding_zero(&material_type, (const void *)&model->materials[t]);
    for (int t = 0; t < model->texture_count; t++)
        clean &= padding_zero(&texture_type, (const void *)&model->textures[t]);
    for (int c = 0; c < model->clip_count; c++) {
        const skv_clip *clip = &model->clips[c];
        clean &= padding_zero(&clip_type, (const void *)clip);
        for (int i = 0; i < clip->channel_count; i++)
            clean &= padding_zero(&channel_type, (const void *)&clip->channels[i]);
        for (int i = 0; i < clip->morph_channel_count; i++)
            clean &= padding_zero(&morph_channel_type, (const void *)&clip->morph_channels[i]);
    }
    return clean;
}

/* --- the model as a whole --------------------------------------------------- */

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            char what_[300];                                                               \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                    \
            return skv_fail(err, SKV_ERR_IMPORT, "the guarded import's model is malformed: %s", what_); \
        }                                                                                  \
    } while (0)

static skv_result check_keys(const void *keys, int count, size_t stride, skv_error *err)
{
    const unsigned char *p = keys;
    double last = -INFINITY;
    for (int k = 0; k < count; k++, p += stride) {
        double t;
        memcpy(&t, p, sizeof t);
        CHECK(t >= last, "key times out of order");
        last = t;
    }
    return SKV_OK;
}

skv_result blob_check(const skv_model *model, skv_error *err)
{
    const skv_skeleton *sk = &model->skeleton;
    CHECK(model->vertex_count >= 0 && model->index_count >= 0 && model->mesh_count >= 0 && model->material_count >= 1 &&
              model->texture_count >= 0 && model->morph_target_count >= 0 && model->morph_delta_count >= 0 &&
              model->clip_count >= 0 && model->warning_count >= 0,
          "a negative count");
    CHECK(model->influence_slots == 4 || model->influence_slots == 8, "influence slots");
    /* Slot numbers (vertex x slots) and floats per vertex are ints in the
     * consumers (draws.c, render.c); before any array is looked at. */
    CHECK((long long)model->vertex_count * model->influence_slots <= INT_MAX, "more vertices than ints number");
    /* Triangles: the consumers read indices three at a time (draws.c,
     * output.c, tangents.c): a count of 4 took two indices past the mesh,
     * even past the array, as vertex numbers. */
    CHECK(model->index_count % 3 == 0, "an index count not a multiple of 3");
    CHECK(sk->node_count >= 1 && sk->bone_count >= 0 && model->file_bone_count >= 0 &&
              model->file_bone_count <= sk->bone_count,
          "skeleton counts");
    CHECK(sk->bone_count <= UINT16_MAX + 1, "more bones than 16-bit indices reach");
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            CHECK(isfinite(model->global_inverse[c][r]) && isfinite(model->upright[c][r]), "root transform");

    /* Nodes parent-first: the walk visits parents before children. */
    CHECK(sk->parents[0] == -1, "node 0 is not the root");
    for (int n = 1; n < sk->node_count; n++) CHECK(sk->parents[n] >= 0 && sk->parents[n] < n, "node %d's parent", n);
    for (int b = 0; b < sk->bone_count; b++)
        CHECK(sk->bone_node[b] >= -1 && sk->bone_node[b] < sk->node_count, "bone %d's node", b);

    /* Vertices: palette indices and the all-influence list. */
    /* The largest index against the bound, not each one: no branch in a
     * loop over every slot of every vertex. */
    size_t slots = (size_t)model->vertex_count * (size_t)model->influence_slots;
    unsigned top_bone = 0;
    for (size_t i = 0; i < slots; i++) top_bone = model->bone_ids[i] > top_bone ? model->bone_ids[i] : top_bone;
    CHECK(slots == 0 || top_bone < (unsigned)(sk->bone_count > 0 ? sk->bone_count : 1), "a vertex's bone index");
    if (model->vertex_count > 0) {
        CHECK(model->influence_start[0] == 0, "influence list start");
        for (int v = 0; v < model->vertex_count; v++)
            /* At least one influence each, as the importer gives every
             * vertex (one on its node where it has none): the dual
             * quaternion blend takes the first as its pivot. */
            CHECK(model->influence_start[v + 1] > model->influence_start[v], "influence list of vertex %d", v);
        for (int i = 0; i < model->influence_start[model->vertex_count]; i++)
            CHECK(model->influences[i].bone >= 0 && model->influences[i].bone < sk->bone_count, "an influence's bone");
    }
    if (model->influence_lists) {
        /* Blended from the lists, a draw (draws.c split) counts a
         * triangle's bones from them and then gives the slots theirs:
         * the slots must be the list's first (the importer packs the
         * largest first, skin_pack_influences), unused slots weigh 0. A
         * slot naming another bone overfilled the draw's bone array. */
        int slots_per = model->influence_slots, apart = 0; /* gathered: no branch a slot */
        for (int v = 0; v < model->vertex_count; v++) {
            int first = model->influence_start[v], count = model->influence_start[v + 1] - first;
            const uint16_t *ids = &model->bone_ids[(size_t)v * (size_t)slots_per];
            const float *weights = &model->weights[(size_t)v * (size_t)slots_per];
            for (int i = 0; i < slots_per; i++)
                apart |= i < count ? ids[i] != model->influences[first + i].bone : weights[i] != 0.0f;
        }
        CHECK(!apart, "a vertex's slots and its influence list");
    }

    long long over_limit = 0;
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        CHECK(mesh->base_vertex >= 0 && mesh->vertex_count >= 0 &&
                  mesh->vertex_count <= model->vertex_count - mesh->base_vertex,
              "mesh %d's vertex range", m);
        CHECK(mesh->first_index >= 0 && mesh->index_count >= 0 &&
                  mesh->index_count <= model->index_count - mesh->first_index,
              "mesh %d's index range", m);
        CHECK(mesh->index_count % 3 == 0, "mesh %d's index count is not a multiple of 3", m);
        uint32_t top_index = 0; /* as for the bone indices */
        if (mesh->index_count > 0) { /* (NULL indices where there are none) */
            const uint32_t *indices = model->indices + mesh->first_index;
            for (int i = 0; i < mesh->index_count; i++) top_index = indices[i] > top_index ? indices[i] : top_index;
        }
        CHECK(mesh->index_count == 0 || top_index < (uint32_t)mesh->vertex_count, "mesh %d's indices", m);
        /* Counts --list prints and adds up (model_over_limit_vertices). */
        CHECK(mesh->bone_count >= 0 && mesh->max_influences >= 0 && mesh->over_limit_vertices >= 0 &&
                  mesh->over_limit_vertices <= mesh->vertex_count && mesh->unweighted_vertices >= 0 &&
                  mesh->unweighted_vertices <= mesh->vertex_count,
              "mesh %d's counts", m);
        over_limit += mesh->over_limit_vertices;
        CHECK(mesh->material >= 0 && mesh->material < model->material_count, "mesh %d's material", m);
        CHECK(mesh->node >= 0 && mesh->node < sk->node_count, "mesh %d's node", m);
        CHECK(mesh->morph_target_count >= 0 && mesh->first_morph_target >= 0 &&
                  mesh->morph_target_count <= model->morph_target_count - mesh->first_morph_target,
              "mesh %d's morph targets", m);
        CHECK(mesh->morph_target_count == 0 ||
                  (mesh->morph_delta_base >= 0 &&
                   (long long)mesh->morph_target_count * mesh->vertex_count <=
                       (long long)model->morph_delta_count - mesh->morph_delta_base),
              "mesh %d's morph deltas", m);
    }
    CHECK(over_limit <= INT_MAX, "vertices over the slots");
    CHECK(model->morph_target_count == 0 || (model->morph_position_deltas && model->morph_normal_deltas &&
                                             model->morph_default_weights),
          "morph arrays");
    /* The deltas' 3 floats of padding (a 4-wide load of the last delta
     * reads them): zero, as the importer leaves them. */
    const float *deltas[2] = {model->morph_position_deltas, model->morph_normal_deltas};
    for (int d = 0; d < 2; d++) {
        if (!deltas[d]) continue;
        uint32_t pad[3];
        memcpy(pad, deltas[d] + (size_t)model->morph_delta_count * 3, sizeof pad);
        CHECK((pad[0] | pad[1] | pad[2]) == 0, "the morph deltas' padding");
    }
    for (int t = 0; t < model->material_count; t++) {
        const skv_material *mat = &model->materials[t];
        /* Negative: none (the importer leaves -1, or -2 for a file that
         * is not there: textures.c), as every reader takes it. */
        CHECK(mat->texture < model->texture_count, "material %d's texture", t);
        for (int k = 0; k < SKV_TEX_SLOTS; k++) CHECK(mat->textures[k] < model->texture_count, "material %d's textures", t);
        for (int i = 0; i < 4; i++) CHECK(isfinite(mat->diffuse[i]), "material %d's colour", t);
        for (int i = 0; i < 3; i++) CHECK(isfinite(mat->emissive[i]), "material %d's emission", t);
        CHECK(isfinite(mat->metallic) && isfinite(mat->roughness) && isfinite(mat->normal_scale) &&
                  isfinite(mat->occlusion_strength) && isfinite(mat->alpha_cutoff),
              "material %d's factors", t);
        CHECK(mat->alpha_mode >= SKV_ALPHA_OPAQUE && mat->alpha_mode <= SKV_ALPHA_BLEND, "material %d's alpha mode", t);
        CHECK(mat->shading == SKV_MATERIAL_PHONG || mat->shading == SKV_MATERIAL_PBR, "material %d's shading", t);
        CHECK(mat->uv_transformed == 0 || mat->uv_transformed == 1, "material %d's UV transform", t);
        for (int k = 0; k < SKV_TEX_SLOTS * 6; k++)
            CHECK(isfinite(mat->uv_transform[k / 6][k % 6]), "material %d's UV transform", t);
    }
    for (int t = 0; t < model->texture_count; t++) {
        const skv_texture *tex = &model->textures[t];
        /* Texels at their size, or none and 0 x 0; a file left for the
         * parent only where there are none yet. */
        CHECK(tex->rgba ? tex->width > 0 && tex->height > 0 : tex->width == 0 && tex->height == 0,
              "texture %d's size", t);
        CHECK(!(tex->file && tex->rgba), "texture %d's file", t);
    }

    for (int c = 0; c < model->clip_count; c++) {
        const skv_clip *clip = &model->clips[c];
        CHECK(isfinite(clip->duration_ticks) && clip->duration_ticks >= 0.0, "clip %d's duration", c);
        CHECK(isfinite(clip->ticks_per_second) && clip->ticks_per_second > 0.0, "clip %d's tick rate", c);
        CHECK(clip->channel_count >= 0 && clip->morph_channel_count >= 0, "clip %d's counts", c);
        /* A retargeted clip names a source node per node of the model. */
        CHECK(clip->retarget_node_count == 0 || clip->retarget_node_count == sk->node_count,
              "clip %d's retarget names", c);
        for (unsigned bit = 1; bit; bit <<= 1) /* --list names each */
            CHECK(!(clip->notes & bit) || model_clip_note_key(bit), "clip %d's notes", c);
        for (int n = 0; n < sk->node_count; n++)
            CHECK(clip->node_channel[n] >= -1 && clip->node_channel[n] < clip->channel_count, "clip %d's node map", c);
        for (int i = 0; i < clip->channel_count; i++) {
            const skv_channel *ch = &clip->channels[i];
            CHECK(ch->node >= 0 && ch->node < sk->node_count, "clip %d channel %d's node", c, i);
            /* One channel per node, the map's: the reference samples
             * channel node_channel[n] for node n, the compiled walk
             * writes a channel's local at its own node (walk_compile.c):
             * apart, the walk read locals nothing wrote. */
            CHECK(clip->node_channel[ch->node] == i, "clip %d channel %d and the node map", c, i);
            CHECK(ch->position_count >= 1 && ch->rotation_count >= 1 && ch->scale_count >= 1,
                  "clip %d channel %d has an empty key array", c, i);
            /* Each array's mode one the keys know, its tangents there just
             * where it is cubic (keys.h reads them then, and only then). */
            CHECK(ch->position_mode >= 0 && ch->position_mode <= 2 && ch->rotation_mode >= 0 &&
                      ch->rotation_mode <= 2 && ch->scale_mode >= 0 && ch->scale_mode <= 2,
                  "clip %d channel %d's interpolation", c, i);
            CHECK((ch->position_mode == 2) == (ch->position_tangents != NULL) &&
                      (ch->rotation_mode == 2) == (ch->rotation_tangents != NULL) &&
                      (ch->scale_mode == 2) == (ch->scale_tangents != NULL),
                  "clip %d channel %d's tangents", c, i);
            if (check_keys(ch->positions, ch->position_count, sizeof *ch->positions, err) != SKV_OK ||
                check_keys(ch->rotations, ch->rotation_count, sizeof *ch->rotations, err) != SKV_OK ||
                check_keys(ch->scales, ch->scale_count, sizeof *ch->scales, err) != SKV_OK)
                return SKV_ERR_IMPORT;
        }
        for (int i = 0; i < clip->morph_channel_count; i++) {
            const skv_morph_channel *mc = &clip->morph_channels[i];
            CHECK(mc->key_count >= 1, "clip %d morph channel %d has no keys", c, i);
            CHECK(mc->mode >= 0 && mc->mode <= 2 && (mc->mode == 2) == (mc->tangents != NULL),
                  "clip %d morph channel %d's interpolation", c, i);
            /* (its mesh is checked as the block is read: its weights' count) */
            CHECK(model->meshes[mc->mesh].morph_target_count >= 1, "clip %d morph channel %d's mesh", c, i);
            if (check_keys(mc->times, mc->key_count, sizeof *mc->times, err) != SKV_OK) return SKV_ERR_IMPORT;
        }
    }
    return SKV_OK;
}
