/* m3d.c - the .m3d text models of Frank Luna's "Introduction to 3D Game
 * Programming with DirectX 11" (its M3DLoader's format, private/m3d.h),
 * rewritten into a glTF 2.0 binary in memory that Assimp then imports
 * like any other file: Assimp has no reader for them (its DXF reader
 * claims the text), and glTF holds all they say (subsets as primitives,
 * bones with inverse bind matrices, clips of translation, rotation and
 * scale keys played linearly, held before the first key and after the
 * last). Every count is checked against the tokens that follow it, every
 * index against what it indexes, every number for being finite, before
 * anything is written. Direct3D's left-handed space becomes Skinview's
 * right-handed one by negating z (S = diag(1, 1, -1)): positions,
 * normals and tangents (whose handedness flips), matrices as S M S,
 * quaternions as (-x, -y, z, w). */
#include "private/m3d.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far past the book's models (the soldier: 58 bones, a few thousand
 * vertices), far below what a lying count would make us allocate before
 * the tokens run out (each item is checked against the bytes left too). */
enum { M3D_MAX_ITEMS = 1 << 24, M3D_MAX_BONES = 65535, M3D_MAX_CLIPS = 4096 };

typedef struct tokens {
    const char *at, *end;
    char token[256];
    int truncated;
    const char *where; /* the section being read, for messages */
} tokens;

/* The next whitespace-separated token, or NULL at the end. */
static const char *next(tokens *t)
{
    while (t->at < t->end && (*t->at == ' ' || *t->at == '\t' || *t->at == '\n' || *t->at == '\r')) t->at++;
    if (t->at >= t->end) return NULL;
    size_t n = 0;
    t->truncated = 0;
    while (t->at < t->end && !(*t->at == ' ' || *t->at == '\t' || *t->at == '\n' || *t->at == '\r')) {
        if (n + 1 < sizeof t->token) t->token[n++] = *t->at;
        else t->truncated = 1;
        t->at++;
    }
    t->token[n] = '\0';
    return t->token;
}

typedef struct m3d_error {
    skv_error *err;
    int failed;
} m3d_error;

static skv_result fail(tokens *t, skv_error *err, const char *format, ...)
{
    char what[300];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    if (t->where) return skv_fail(err, SKV_ERR_IMPORT, ".m3d, in its %s: %s", t->where, what);
    return skv_fail(err, SKV_ERR_IMPORT, ".m3d: %s", what);
}

/* A label: any token that is not a number (the book's loader skips them
 * unread; a number here means a count said more than the file holds). */
static skv_result label(tokens *t, skv_error *err, const char *expected)
{
    const char *s = next(t);
    if (!s) return fail(t, err, "the file ends where '%s' was due", expected);
    char *end;
    errno = 0;
    strtod(s, &end);
    if (*s && *end == '\0') return fail(t, err, "a number where '%s' was due (a count says more than is there)", expected);
    if (s[0] == '*') return fail(t, err, "the next section begins where '%s' was due (a count says more than is there)", expected);
    return SKV_OK;
}

static skv_result number(tokens *t, skv_error *err, double *out)
{
    const char *s = next(t);
    if (!s) return fail(t, err, "the file ends where a number was due");
    char *end;
    double v = strtod(s, &end);
    if (*end != '\0' || end == s) return fail(t, err, "'%.40s' where a number was due", s);
    if (!isfinite(v)) return fail(t, err, "a number that is not finite (%.40s)", s);
    *out = v;
    return SKV_OK;
}

static skv_result numbers(tokens *t, skv_error *err, double *out, int count)
{
    for (int i = 0; i < count; i++)
        if (number(t, err, &out[i]) != SKV_OK) return SKV_ERR_IMPORT;
    return SKV_OK;
}

static skv_result integer(tokens *t, skv_error *err, long lo, long hi, long *out, const char *what)
{
    double v;
    if (number(t, err, &v) != SKV_OK) return SKV_ERR_IMPORT;
    if (v != floor(v) || v < (double)lo || v > (double)hi)
        return fail(t, err, "%s %g is not a whole number in %ld..%ld", what, v, lo, hi);
    *out = (long)v;
    return SKV_OK;
}

/* A label, then a count. */
static skv_result labelled_count(tokens *t, skv_error *err, const char *name, long hi, long *out)
{
    if (label(t, err, name) != SKV_OK) return SKV_ERR_IMPORT;
    return integer(t, err, 0, hi, out, name);
}

/* A banner line (one token of asterisks and a word) opens each section. */
static skv_result banner(tokens *t, skv_error *err, const char *section)
{
    t->where = section;
    const char *s = next(t);
    if (!s || s[0] != '*' || !strstr(s, section)) return fail(t, err, "its banner is missing");
    return SKV_OK;
}

int m3d_recognised(const unsigned char *bytes, size_t size)
{
    tokens t = {.at = (const char *)bytes, .end = (const char *)bytes + size};
    const char *s = next(&t);
    return s && s[0] == '*' && strstr(s, "m3d-File-Header") != NULL;
}

/* --- what the file says -------------------------------------------------- */

typedef struct m3d_material {
    double diffuse[3], spec_power;
    int alpha_clip;
    char diffuse_map[256], normal_map[256];
} m3d_material;

typedef struct m3d_subset {
    long vertex_start, vertex_count, face_start, face_count;
} m3d_subset;

typedef struct m3d_key {
    double time, pos[3], scale[3], quat[4];
} m3d_key;

typedef struct m3d_clip {
    char name[256];
    long *key_counts; /* per bone */
    m3d_key **keys;   /* per bone */
} m3d_clip;

typedef struct m3d_file {
    long material_count, vertex_count, triangle_count, bone_count, clip_count;
    m3d_material *materials;
    m3d_subset *subsets;
    float *positions, *normals, *tangents, *uvs, *weights; /* 3, 3, 4, 2, 4 a vertex */
    uint16_t *joints;                                       /* 4 a vertex */
    uint32_t *indices;                                      /* 3 a triangle */
    double *offsets;                                        /* 16 a bone, row-major for row vectors */
    long *parents;
    m3d_clip *clips;
} m3d_file;

static void m3d_free(m3d_file *f)
{
    free(f->materials), free(f->subsets);
    free(f->positions), free(f->normals), free(f->tangents), free(f->uvs), free(f->weights), free(f->joints);
    free(f->indices), free(f->offsets), free(f->parents);
    for (long c = 0; f->clips && c < f->clip_count; c++) {
        for (long b = 0; f->clips[c].keys && b < f->bone_count; b++) free(f->clips[c].keys[b]);
        free(f->clips[c].keys), free(f->clips[c].key_counts);
    }
    free(f->clips);
}

/* Enough bytes left for `count` items of at least `bytes_each`? A lying
 * count is refused before its arrays are allocated. */
static skv_result room_for(tokens *t, skv_error *err, long count, long bytes_each, const char *what)
{
    if ((double)count * (double)bytes_each > (double)(t->end - t->at))
        return fail(t, err, "%ld %s cannot fit in the %ld bytes left", count, what, (long)(t->end - t->at));
    return SKV_OK;
}

static skv_result read_file_name(tokens *t, skv_error *err, const char *label_name, char *out, size_t size)
{
    if (label(t, err, label_name) != SKV_OK) return SKV_ERR_IMPORT;
    const char *s = next(t);
    if (!s) return fail(t, err, "the file ends where a file name was due");
    if (t->truncated) return fail(t, err, "a texture file name longer than %zu bytes", size - 1);
    snprintf(out, size, "%s", s);
    return SKV_OK;
}

static skv_result read_materials(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "Materials") != SKV_OK) return SKV_ERR_IMPORT;
    f->materials = calloc((size_t)f->material_count + 1, sizeof *f->materials);
    if (!f->materials) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long m = 0; m < f->material_count; m++) {
        m3d_material *mat = &f->materials[m];
        double ignored[3], clip;
        char effect[256];
        if (label(t, err, "Ambient:") || numbers(t, err, ignored, 3) || label(t, err, "Diffuse:") ||
            numbers(t, err, mat->diffuse, 3) || label(t, err, "Specular:") || numbers(t, err, ignored, 3) ||
            label(t, err, "SpecPower:") || number(t, err, &mat->spec_power) || label(t, err, "Reflectivity:") ||
            numbers(t, err, ignored, 3) || label(t, err, "AlphaClip:") || number(t, err, &clip) ||
            read_file_name(t, err, "Effect:", effect, sizeof effect) ||
            read_file_name(t, err, "DiffuseMap:", mat->diffuse_map, sizeof mat->diffuse_map) ||
            read_file_name(t, err, "NormalMap:", mat->normal_map, sizeof mat->normal_map))
            return SKV_ERR_IMPORT;
        mat->alpha_clip = clip != 0.0;
    }
    return SKV_OK;
}

static skv_result read_subsets(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "SubsetTable") != SKV_OK) return SKV_ERR_IMPORT;
    f->subsets = calloc((size_t)f->material_count + 1, sizeof *f->subsets);
    if (!f->subsets) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long m = 0; m < f->material_count; m++) {
        m3d_subset *s = &f->subsets[m];
        long id;
        if (label(t, err, "SubsetID:") || integer(t, err, 0, f->material_count - 1, &id, "subset id") ||
            label(t, err, "VertexStart:") || integer(t, err, 0, f->vertex_count, &s->vertex_start, "VertexStart") ||
            label(t, err, "VertexCount:") ||
            integer(t, err, 0, f->vertex_count - s->vertex_start, &s->vertex_count, "VertexCount") ||
            label(t, err, "FaceStart:") || integer(t, err, 0, f->triangle_count, &s->face_start, "FaceStart") ||
            label(t, err, "FaceCount:") ||
            integer(t, err, 0, f->triangle_count - s->face_start, &s->face_count, "FaceCount"))
            return SKV_ERR_IMPORT;
        if (id != m) return fail(t, err, "subset %ld is numbered %ld (subset i is drawn with material i)", m, id);
    }
    return SKV_OK;
}

static skv_result read_vertices(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "Vertices") != SKV_OK) return SKV_ERR_IMPORT;
    int skinned = f->bone_count > 0;
    if (room_for(t, err, f->vertex_count, skinned ? 60 : 40, "vertices") != SKV_OK) return SKV_ERR_IMPORT;
    size_t n = (size_t)f->vertex_count + 1;
    f->positions = malloc(n * 3 * sizeof(float)), f->normals = malloc(n * 3 * sizeof(float));
    f->tangents = malloc(n * 4 * sizeof(float)), f->uvs = malloc(n * 2 * sizeof(float));
    f->weights = calloc(n * 4, sizeof(float)), f->joints = calloc(n * 4, sizeof(uint16_t));
    if (!f->positions || !f->normals || !f->tangents || !f->uvs || !f->weights || !f->joints)
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long v = 0; v < f->vertex_count; v++) {
        double p[3], tg[4], nm[3], uv[2];
        if (label(t, err, "Position:") || numbers(t, err, p, 3) || label(t, err, "Tangent:") || numbers(t, err, tg, 4) ||
            label(t, err, "Normal:") || numbers(t, err, nm, 3) || label(t, err, "Tex-Coords:") || numbers(t, err, uv, 2))
            return SKV_ERR_IMPORT;
        /* z negated; the tangent frame's handedness with it. */
        float *pos = f->positions + v * 3, *nor = f->normals + v * 3, *tan = f->tangents + v * 4;
        pos[0] = (float)p[0], pos[1] = (float)p[1], pos[2] = (float)-p[2];
        nor[0] = (float)nm[0], nor[1] = (float)nm[1], nor[2] = (float)-nm[2];
        tan[0] = (float)tg[0], tan[1] = (float)tg[1], tan[2] = (float)-tg[2];
        tan[3] = tg[3] < 0.0 ? 1.0f : -1.0f;
        f->uvs[v * 2] = (float)uv[0], f->uvs[v * 2 + 1] = (float)uv[1];
        if (!skinned) continue;
        double w[4];
        long b[4];
        if (label(t, err, "BlendWeights:") || numbers(t, err, w, 4) || label(t, err, "BlendIndices:")) return SKV_ERR_IMPORT;
        for (int k = 0; k < 4; k++)
            if (integer(t, err, 0, f->bone_count - 1, &b[k], "a blend index") != SKV_OK) return SKV_ERR_IMPORT;
        /* The book's shader weighs the fourth bone 1 - w0 - w1 - w2. */
        double fourth = 1.0 - w[0] - w[1] - w[2];
        for (int k = 0; k < 3; k++)
            if (w[k] < -1e-4 || w[k] > 1.0 + 1e-4) return fail(t, err, "vertex %ld's weight %g is not in 0..1", v, w[k]);
        if (fourth < -1e-4) return fail(t, err, "vertex %ld's first three weights add up past 1", v);
        double ws[4] = {w[0] < 0 ? 0 : w[0], w[1] < 0 ? 0 : w[1], w[2] < 0 ? 0 : w[2], fourth < 0 ? 0 : fourth};
        for (int k = 0; k < 4; k++) f->weights[v * 4 + k] = (float)ws[k], f->joints[v * 4 + k] = (uint16_t)b[k];
    }
    return SKV_OK;
}

static skv_result read_triangles(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "Triangles") != SKV_OK) return SKV_ERR_IMPORT;
    if (room_for(t, err, f->triangle_count, 6, "triangles") != SKV_OK) return SKV_ERR_IMPORT;
    f->indices = malloc(((size_t)f->triangle_count * 3 + 1) * sizeof *f->indices);
    if (!f->indices) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long i = 0; i < f->triangle_count * 3; i++) {
        long index;
        if (integer(t, err, 0, f->vertex_count - 1, &index, "a vertex index") != SKV_OK) return SKV_ERR_IMPORT;
        f->indices[i] = (uint32_t)index;
    }
    return SKV_OK;
}

static skv_result read_bones(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "BoneOffsets") != SKV_OK) return SKV_ERR_IMPORT;
    if (room_for(t, err, f->bone_count, 40, "bone offsets") != SKV_OK) return SKV_ERR_IMPORT;
    f->offsets = malloc(((size_t)f->bone_count + 1) * 16 * sizeof(double));
    f->parents = malloc(((size_t)f->bone_count + 1) * sizeof(long));
    if (!f->offsets || !f->parents) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long b = 0; b < f->bone_count; b++)
        if (label(t, err, "BoneOffset") || numbers(t, err, f->offsets + b * 16, 16)) return SKV_ERR_IMPORT;
    if (banner(t, err, "BoneHierarchy") != SKV_OK) return SKV_ERR_IMPORT;
    for (long b = 0; b < f->bone_count; b++) {
        if (label(t, err, "ParentIndexOfBone") || integer(t, err, -1, f->bone_count - 1, &f->parents[b], "a parent index"))
            return SKV_ERR_IMPORT;
        if (f->parents[b] >= b)
            return fail(t, err, "bone %ld's parent %ld comes after it (parents come before their children)", b,
                        f->parents[b]);
    }
    return SKV_OK;
}

static skv_result read_clips(tokens *t, m3d_file *f, skv_error *err)
{
    if (banner(t, err, "AnimationClips") != SKV_OK) return SKV_ERR_IMPORT;
    f->clips = calloc((size_t)f->clip_count + 1, sizeof *f->clips);
    if (!f->clips) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (long c = 0; c < f->clip_count; c++) {
        m3d_clip *clip = &f->clips[c];
        clip->key_counts = calloc((size_t)f->bone_count + 1, sizeof *clip->key_counts);
        clip->keys = calloc((size_t)f->bone_count + 1, sizeof *clip->keys);
        if (!clip->key_counts || !clip->keys) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        if (label(t, err, "AnimationClip") != SKV_OK) return SKV_ERR_IMPORT;
        const char *name = next(t);
        if (!name) return fail(t, err, "the file ends where clip %ld's name was due", c);
        snprintf(clip->name, sizeof clip->name, "%s", name);
        const char *brace = next(t);
        if (!brace || strcmp(brace, "{") != 0) return fail(t, err, "clip '%.40s' does not open with '{'", clip->name);
        for (long b = 0; b < f->bone_count; b++) {
            long n;
            if (label(t, err, "Bone") || labelled_count(t, err, "#Keyframes:", M3D_MAX_ITEMS, &n)) return SKV_ERR_IMPORT;
            brace = next(t);
            if (!brace || strcmp(brace, "{") != 0) return fail(t, err, "bone %ld's keys do not open with '{'", b);
            if (room_for(t, err, n, 40, "keyframes") != SKV_OK) return SKV_ERR_IMPORT;
            clip->key_counts[b] = n;
            clip->keys[b] = malloc(((size_t)n + 1) * sizeof *clip->keys[b]);
            if (!clip->keys[b]) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            for (long k = 0; k < n; k++) {
                m3d_key *key = &clip->keys[b][k];
                if (label(t, err, "Time:") || number(t, err, &key->time) || label(t, err, "Pos:") ||
                    numbers(t, err, key->pos, 3) || label(t, err, "Scale:") || numbers(t, err, key->scale, 3) ||
                    label(t, err, "Quat:") || numbers(t, err, key->quat, 4))
                    return SKV_ERR_IMPORT;
                if (k > 0 && !(key->time > clip->keys[b][k - 1].time))
                    return fail(t, err, "clip '%.40s', bone %ld: key times do not increase", clip->name, b);
                double len = sqrt(key->quat[0] * key->quat[0] + key->quat[1] * key->quat[1] +
                                  key->quat[2] * key->quat[2] + key->quat[3] * key->quat[3]);
                if (!(len > 1e-6)) return fail(t, err, "clip '%.40s', bone %ld: a zero rotation", clip->name, b);
                for (int i = 0; i < 4; i++) key->quat[i] /= len;
            }
            brace = next(t);
            if (!brace || strcmp(brace, "}") != 0) return fail(t, err, "bone %ld's keys do not close with '}'", b);
        }
        brace = next(t);
        if (!brace || strcmp(brace, "}") != 0) return fail(t, err, "clip '%.40s' does not close with '}'", clip->name);
    }
    return SKV_OK;
}

static skv_result m3d_read(const unsigned char *bytes, size_t size, m3d_file *f, skv_error *err)
{
    tokens t = {.at = (const char *)bytes, .end = (const char *)bytes + size};
    memset(f, 0, sizeof *f);
    t.where = "header";
    if (!m3d_recognised(bytes, size)) return fail(&t, err, "not an .m3d file");
    next(&t);
    if (labelled_count(&t, err, "#Materials", M3D_MAX_ITEMS, &f->material_count) ||
        labelled_count(&t, err, "#Vertices", M3D_MAX_ITEMS, &f->vertex_count) ||
        labelled_count(&t, err, "#Triangles", M3D_MAX_ITEMS, &f->triangle_count) ||
        labelled_count(&t, err, "#Bones", M3D_MAX_BONES, &f->bone_count) ||
        labelled_count(&t, err, "#AnimationClips", M3D_MAX_CLIPS, &f->clip_count))
        return SKV_ERR_IMPORT;
    if (f->material_count == 0 || f->vertex_count == 0 || f->triangle_count == 0)
        return fail(&t, err, "no materials, vertices or triangles");
    if (read_materials(&t, f, err) || read_subsets(&t, f, err) || read_vertices(&t, f, err) ||
        read_triangles(&t, f, err))
        return SKV_ERR_IMPORT;
    if (f->bone_count > 0 && read_bones(&t, f, err)) return SKV_ERR_IMPORT;
    if (f->clip_count > 0 && read_clips(&t, f, err)) return SKV_ERR_IMPORT;
    /* Every subset's triangles name vertices in the subset's own range?
     * Not required: indices are into the whole array (the primitive then
     * covers the range its indices use). */
    return SKV_OK;
}

/* --- the glTF it becomes ------------------------------------------------- */

typedef struct bytes_out {
    unsigned char *data;
    size_t size, capacity;
    int failed;
} bytes_out;

static void put(bytes_out *b, const void *p, size_t n)
{
    if (b->failed || n == 0) return;
    if (b->size + n > b->capacity) {
        size_t cap = b->capacity ? b->capacity * 2 : 4096;
        while (cap < b->size + n) cap *= 2;
        unsigned char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown, b->capacity = cap;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void say(bytes_out *b, const char *format, ...)
{
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof line) {
        b->failed = 1;
        return;
    }
    put(b, line, (size_t)n);
}

/* A JSON string of a name from the file: only printable ASCII kept. */
static void say_string(bytes_out *b, const char *s)
{
    put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 32 || c > 126 || c == '"' || c == '\\') put(b, "_", 1);
        else put(b, s, 1);
    }
    put(b, "\"", 1);
}

/* Appends `n` bytes to the binary chunk as a buffer view (4-aligned);
 * returns its index. */
typedef struct glb {
    bytes_out json, bin;
    int views, accessors;
    int first_key; /* separators */
} glb;

static int view(glb *g, const void *p, size_t n)
{
    static const unsigned char zeros[4] = {0};
    put(&g->bin, zeros, (4 - g->bin.size % 4) % 4);
    say(&g->json, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", g->views ? "," : "", g->bin.size, n);
    put(&g->bin, p, n);
    return g->views++;
}

/* An accessor of `count` elements on view `v` from `offset`; min/max
 * (3 floats) for positions. */
static int accessor(bytes_out *a, glb *g, int v, size_t offset, int component, long count, const char *type,
                    const float *min, const float *max)
{
    say(a, "%s{\"bufferView\":%d,\"byteOffset\":%zu,\"componentType\":%d,\"count\":%ld,\"type\":\"%s\"",
        g->accessors ? "," : "", v, offset, component, count, type);
    if (min) say(a, ",\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]", min[0], min[1], min[2], max[0], max[1], max[2]);
    put(a, "}", 1);
    return g->accessors++;
}

enum { GL_FLOAT = 5126, GL_UNSIGNED_SHORT = 5123, GL_UNSIGNED_INT = 5125 };

/* A row-major row-vector matrix M into a column-major column-vector one,
 * mirrored: S M^T S with S = diag(1, 1, -1, 1). */
static void mirrored_columns(const double *m, float out[16])
{
    static const double s[4] = {1, 1, -1, 1};
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) out[col * 4 + row] = (float)(s[row] * m[col * 4 + row] * s[col]);
}

/* 4 x 4 column-major product and a rigid-with-scale inverse. */
static void multiply(const double *a, const double *b, double *out)
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a[k * 4 + i] * b[c * 4 + k];
            r[c * 4 + i] = v;
        }
    memcpy(out, r, sizeof r);
}

static int invert(const double *m, double *out)
{
    /* General 4 x 4 inverse by cofactors. */
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (!(fabs(det) > 1e-20) || !isfinite(det)) return -1;
    for (int i = 0; i < 16; i++) out[i] = inv[i] / det;
    return 0;
}

/* A column-major affine matrix as translation, rotation (x, y, z, w) and
 * scale; the rest pose's nodes in glTF must be TRS. */
static void decompose(const double *m, double t[3], double q[4], double s[3])
{
    t[0] = m[12], t[1] = m[13], t[2] = m[14];
    double c[3][3];
    for (int col = 0; col < 3; col++) {
        double len = sqrt(m[col * 4] * m[col * 4] + m[col * 4 + 1] * m[col * 4 + 1] + m[col * 4 + 2] * m[col * 4 + 2]);
        s[col] = len > 0 ? len : 1;
        for (int r = 0; r < 3; r++) c[col][r] = m[col * 4 + r] / s[col];
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) - c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) { /* a mirror: taken on one scale */
        s[0] = -s[0];
        for (int r = 0; r < 3; r++) c[0][r] = -c[0][r];
    }
    /* Rotation matrix (column c, row r: R[r][c] = c[c][r]) to quaternion. */
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], trace = r00 + r11 + r22;
    if (trace > 0) {
        double k = 0.5 / sqrt(trace + 1.0);
        q[3] = 0.25 / k, q[0] = (c[1][2] - c[2][1]) * k, q[1] = (c[2][0] - c[0][2]) * k, q[2] = (c[0][1] - c[1][0]) * k;
    } else if (r00 > r11 && r00 > r22) {
        double k = 2.0 * sqrt(1.0 + r00 - r11 - r22);
        q[3] = (c[1][2] - c[2][1]) / k, q[0] = 0.25 * k, q[1] = (c[1][0] + c[0][1]) / k, q[2] = (c[2][0] + c[0][2]) / k;
    } else if (r11 > r22) {
        double k = 2.0 * sqrt(1.0 + r11 - r00 - r22);
        q[3] = (c[2][0] - c[0][2]) / k, q[0] = (c[1][0] + c[0][1]) / k, q[1] = 0.25 * k, q[2] = (c[2][1] + c[1][2]) / k;
    } else {
        double k = 2.0 * sqrt(1.0 + r22 - r00 - r11);
        q[3] = (c[0][1] - c[1][0]) / k, q[0] = (c[2][0] + c[0][2]) / k, q[1] = (c[2][1] + c[1][2]) / k, q[2] = 0.25 * k;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= len;
}

static float srgb_to_linear(double c)
{
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
}

static skv_result write_glb(const m3d_file *f, unsigned char **out, size_t *out_size, skv_error *err)
{
    glb g = {.views = 0};
    bytes_out accessors = {0}, views_json = {0};
    /* Vertex arrays: one view each, shared by every subset's accessors. */
    g.json = views_json;
    size_t n = (size_t)f->vertex_count;
    int v_pos = view(&g, f->positions, n * 12), v_nor = view(&g, f->normals, n * 12);
    int v_tan = view(&g, f->tangents, n * 16), v_uv = view(&g, f->uvs, n * 8);
    int skinned = f->bone_count > 0;
    int v_joint = skinned ? view(&g, f->joints, n * 8) : -1, v_weight = skinned ? view(&g, f->weights, n * 16) : -1;
    int v_index = view(&g, f->indices, (size_t)f->triangle_count * 12);
    bytes_out meshes = {0};
    say(&meshes, "[{\"name\":\"m3d\",\"primitives\":[");
    int primitives = 0;
    uint32_t *rebased = malloc(((size_t)f->triangle_count * 3 + 1) * sizeof *rebased);
    if (!rebased) goto memory;
    for (long m = 0; m < f->material_count; m++) {
        const m3d_subset *s = &f->subsets[m];
        if (s->face_count == 0) continue;
        /* The vertices its triangles name: the range of the primitive's
         * attributes; its indices rebased to it. */
        uint32_t lo = UINT32_MAX, hi = 0;
        const uint32_t *tri = f->indices + s->face_start * 3;
        for (long i = 0; i < s->face_count * 3; i++) lo = tri[i] < lo ? tri[i] : lo, hi = tri[i] > hi ? tri[i] : hi;
        uint32_t *mine = rebased + s->face_start * 3;
        for (long i = 0; i < s->face_count * 3; i++) mine[i] = tri[i] - lo;
        int v_mine = view(&g, mine, (size_t)s->face_count * 12);
        long count = (long)(hi - lo + 1);
        float min[3] = {INFINITY, INFINITY, INFINITY}, max[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = lo; v <= hi; v++)
            for (int k = 0; k < 3; k++) {
                float p = f->positions[v * 3 + k];
                min[k] = p < min[k] ? p : min[k], max[k] = p > max[k] ? p : max[k];
            }
        int a_pos = accessor(&accessors, &g, v_pos, (size_t)lo * 12, GL_FLOAT, count, "VEC3", min, max);
        int a_nor = accessor(&accessors, &g, v_nor, (size_t)lo * 12, GL_FLOAT, count, "VEC3", NULL, NULL);
        int a_tan = accessor(&accessors, &g, v_tan, (size_t)lo * 16, GL_FLOAT, count, "VEC4", NULL, NULL);
        int a_uv = accessor(&accessors, &g, v_uv, (size_t)lo * 8, GL_FLOAT, count, "VEC2", NULL, NULL);
        int a_index = accessor(&accessors, &g, v_mine, 0, GL_UNSIGNED_INT, s->face_count * 3, "SCALAR", NULL, NULL);
        say(&meshes, "%s{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,\"TANGENT\":%d,\"TEXCOORD_0\":%d", primitives ? "," : "",
            a_pos, a_nor, a_tan, a_uv);
        if (skinned) {
            int a_joint = accessor(&accessors, &g, v_joint, (size_t)lo * 8, GL_UNSIGNED_SHORT, count, "VEC4", NULL, NULL);
            int a_weight = accessor(&accessors, &g, v_weight, (size_t)lo * 16, GL_FLOAT, count, "VEC4", NULL, NULL);
            say(&meshes, ",\"JOINTS_0\":%d,\"WEIGHTS_0\":%d", a_joint, a_weight);
        }
        say(&meshes, "},\"indices\":%d,\"material\":%ld}", a_index, m);
        primitives++;
    }
    (void)v_index;
    put(&meshes, "]}]", 3);

    /* Materials, as Skinview maps Phong ones (convert.c): the diffuse
     * colour (sRGB) as base colour, multiplying the diffuse map as the
     * book's shader does (other Phong formats draw the map alone); no metal;
     * the specular power s as roughness sqrt(sqrt(2 / (s + 2))); the
     * book's alpha clip (alpha below 0.1 discarded) as a mask. */
    bytes_out materials = {0}, textures = {0}, images = {0};
    int texture_count = 0;
    put(&materials, "[", 1);
    for (long m = 0; m < f->material_count; m++) {
        const m3d_material *mat = &f->materials[m];
        double s = mat->spec_power > 0 ? mat->spec_power : 0;
        say(&materials, "%s{\"name\":\"m3d material %ld\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.6g,%.6g,%.6g,1],"
            "\"metallicFactor\":0,\"roughnessFactor\":%.6g", m ? "," : "", m, srgb_to_linear(mat->diffuse[0]),
            srgb_to_linear(mat->diffuse[1]), srgb_to_linear(mat->diffuse[2]), sqrt(sqrt(2.0 / (s + 2.0))));
        int maps[2] = {-1, -1};
        for (int map = 0; map < 2; map++) {
            const char *file = map == 0 ? mat->diffuse_map : mat->normal_map;
            if (!file[0]) continue;
            say(&images, "%s{\"uri\":", texture_count ? "," : "");
            say_string(&images, file);
            put(&images, "}", 1);
            say(&textures, "%s{\"source\":%d}", texture_count ? "," : "", texture_count);
            maps[map] = texture_count++;
        }
        if (maps[0] >= 0) say(&materials, ",\"baseColorTexture\":{\"index\":%d}", maps[0]);
        put(&materials, "}", 1);
        if (maps[1] >= 0) say(&materials, ",\"normalTexture\":{\"index\":%d}", maps[1]);
        if (mat->alpha_clip) say(&materials, ",\"alphaMode\":\"MASK\",\"alphaCutoff\":0.1");
        put(&materials, "}", 1);
    }
    put(&materials, "]", 1);

    /* Nodes: bones 0..n-1 first (the skin's joints), then the mesh's. */
    bytes_out nodes = {0}, skins = {0}, anims = {0};
    double *globals = skinned ? malloc((size_t)f->bone_count * 16 * sizeof(double)) : NULL;
    float *inverse_binds = skinned ? malloc((size_t)f->bone_count * 16 * sizeof(float)) : NULL;
    if (skinned && (!globals || !inverse_binds)) goto memory_more;
    put(&nodes, "[", 1);
    for (long b = 0; b < f->bone_count; b++) {
        /* The bind pose from the offsets: global = offset^-1, local =
         * parent's global^-1 global. */
        mirrored_columns(f->offsets + b * 16, inverse_binds + b * 16);
        double offset[16], local[16], parent_inverse[16];
        for (int i = 0; i < 16; i++) offset[i] = inverse_binds[b * 16 + i];
        if (invert(offset, globals + b * 16) != 0) {
            free(globals), free(inverse_binds);
            free(meshes.data), free(materials.data), free(textures.data), free(images.data), free(nodes.data);
            free(accessors.data), free(g.json.data), free(g.bin.data), free(rebased);
            return skv_fail(err, SKV_ERR_IMPORT, "cannot import: .m3d: bone %ld's offset matrix cannot be inverted", b);
        }
        if (f->parents[b] < 0) memcpy(local, globals + b * 16, sizeof local);
        else if (invert(globals + f->parents[b] * 16, parent_inverse) == 0)
            multiply(parent_inverse, globals + b * 16, local);
        else memcpy(local, globals + b * 16, sizeof local);
        double t[3], q[4], s[3];
        decompose(local, t, q, s);
        say(&nodes, "%s{\"name\":\"Bone%ld\",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g],"
            "\"scale\":[%.9g,%.9g,%.9g]", b ? "," : "", b, t[0], t[1], t[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2]);
        int children = 0;
        for (long c = b + 1; c < f->bone_count; c++)
            if (f->parents[c] == b) say(&nodes, "%s%ld", children++ ? "," : ",\"children\":[", c);
        if (children) put(&nodes, "]", 1);
        put(&nodes, "}", 1);
    }
    say(&nodes, "%s{\"name\":\"m3d mesh\",\"mesh\":0%s}]", f->bone_count ? "," : "", skinned ? ",\"skin\":0" : "");
    if (skinned) {
        int v_ibm = view(&g, inverse_binds, (size_t)f->bone_count * 64);
        int a_ibm = accessor(&accessors, &g, v_ibm, 0, GL_FLOAT, f->bone_count, "MAT4", NULL, NULL);
        say(&skins, "[{\"inverseBindMatrices\":%d,\"joints\":[", a_ibm);
        for (long b = 0; b < f->bone_count; b++) say(&skins, "%s%ld", b ? "," : "", b);
        put(&skins, "]}]", 3);
    }

    /* Clips: per bone with keys, one sampler each for translation,
     * rotation and scale over its key times. */
    put(&anims, "[", 1);
    for (long c = 0; c < f->clip_count && skinned; c++) {
        const m3d_clip *clip = &f->clips[c];
        say(&anims, "%s{\"name\":", c ? "," : "");
        say_string(&anims, clip->name);
        bytes_out samplers = {0}, channels = {0};
        int sampler_count = 0;
        for (long b = 0; b < f->bone_count; b++) {
            long k = clip->key_counts[b];
            if (k == 0) continue;
            float *data = malloc((size_t)k * 11 * sizeof(float));
            if (!data) {
                free(samplers.data), free(channels.data);
                goto memory_more;
            }
            float *times = data, *pos = data + k, *rot = data + 4 * k, *scale = data + 8 * k;
            for (long i = 0; i < k; i++) {
                const m3d_key *key = &clip->keys[b][i];
                times[i] = (float)key->time;
                pos[i * 3] = (float)key->pos[0], pos[i * 3 + 1] = (float)key->pos[1], pos[i * 3 + 2] = (float)-key->pos[2];
                rot[i * 4] = (float)-key->quat[0], rot[i * 4 + 1] = (float)-key->quat[1];
                rot[i * 4 + 2] = (float)key->quat[2], rot[i * 4 + 3] = (float)key->quat[3];
                for (int j = 0; j < 3; j++) scale[i * 3 + j] = (float)key->scale[j];
            }
            int v_keys = view(&g, data, (size_t)k * 11 * sizeof(float));
            free(data);
            int a_time = accessor(&accessors, &g, v_keys, 0, GL_FLOAT, k, "SCALAR", NULL, NULL);
            int a_pos = accessor(&accessors, &g, v_keys, (size_t)k * 4, GL_FLOAT, k, "VEC3", NULL, NULL);
            int a_rot = accessor(&accessors, &g, v_keys, (size_t)k * 16, GL_FLOAT, k, "VEC4", NULL, NULL);
            int a_scale = accessor(&accessors, &g, v_keys, (size_t)k * 32, GL_FLOAT, k, "VEC3", NULL, NULL);
            static const char *const paths[3] = {"translation", "rotation", "scale"};
            int outputs[3] = {a_pos, a_rot, a_scale};
            for (int p = 0; p < 3; p++) {
                say(&samplers, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}", sampler_count ? "," : "",
                    a_time, outputs[p]);
                say(&channels, "%s{\"sampler\":%d,\"target\":{\"node\":%ld,\"path\":\"%s\"}}", sampler_count ? "," : "",
                    sampler_count, b, paths[p]);
                sampler_count++;
            }
        }
        say(&anims, ",\"samplers\":[");
        put(&anims, samplers.data ? samplers.data : (unsigned char *)"", samplers.size);
        say(&anims, "],\"channels\":[");
        put(&anims, channels.data ? channels.data : (unsigned char *)"", channels.size);
        say(&anims, "]}");
        anims.failed |= samplers.failed | channels.failed;
        free(samplers.data), free(channels.data);
    }
    put(&anims, "]", 1);

    /* The document. */
    bytes_out doc = {0};
    say(&doc, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"skinview m3d.c\"},\"scene\":0,\"scenes\":[{\"nodes\":[");
    int roots = 0;
    for (long b = 0; b < f->bone_count; b++)
        if (f->parents[b] < 0) say(&doc, "%s%ld", roots++ ? "," : "", b);
    say(&doc, "%s%ld]}],\"nodes\":", roots ? "," : "", f->bone_count);
    put(&doc, nodes.data, nodes.size);
    say(&doc, ",\"meshes\":");
    put(&doc, meshes.data, meshes.size);
    say(&doc, ",\"materials\":");
    put(&doc, materials.data, materials.size);
    if (texture_count) {
        say(&doc, ",\"textures\":[");
        put(&doc, textures.data, textures.size);
        say(&doc, "],\"images\":[");
        put(&doc, images.data, images.size);
        put(&doc, "]", 1);
    }
    if (skinned) {
        say(&doc, ",\"skins\":");
        put(&doc, skins.data, skins.size);
        if (f->clip_count) {
            say(&doc, ",\"animations\":");
            put(&doc, anims.data, anims.size);
        }
    }
    say(&doc, ",\"accessors\":[");
    put(&doc, accessors.data, accessors.size);
    say(&doc, "],\"bufferViews\":[");
    put(&doc, g.json.data, g.json.size);
    say(&doc, "],\"buffers\":[{\"byteLength\":%zu}]}", g.bin.size);
    int failed = doc.failed | g.json.failed | g.bin.failed | accessors.failed | meshes.failed | materials.failed |
                 textures.failed | images.failed | nodes.failed | skins.failed | anims.failed;
    /* The binary container: header, JSON chunk (space-padded), BIN chunk. */
    bytes_out file = {0};
    if (!failed) {
        static const char spaces[4] = {' ', ' ', ' ', ' '};
        static const unsigned char zeros[4] = {0};
        uint32_t json_length = (uint32_t)(doc.size + (4 - doc.size % 4) % 4);
        uint32_t bin_length = (uint32_t)(g.bin.size + (4 - g.bin.size % 4) % 4);
        uint32_t header[5] = {0x46546C67u, 2, 12 + 8 + json_length + 8 + bin_length, json_length, 0x4E4F534Au};
        put(&file, header, sizeof header);
        put(&file, doc.data, doc.size);
        put(&file, spaces, json_length - doc.size);
        uint32_t bin_header[2] = {bin_length, 0x004E4942u};
        put(&file, bin_header, sizeof bin_header);
        put(&file, g.bin.data, g.bin.size);
        put(&file, zeros, bin_length - g.bin.size);
        failed = file.failed;
    }
    free(doc.data), free(g.json.data), free(g.bin.data), free(accessors.data), free(meshes.data);
    free(materials.data), free(textures.data), free(images.data), free(nodes.data), free(skins.data), free(anims.data);
    free(globals), free(inverse_binds), free(rebased);
    if (failed) {
        free(file.data);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    *out = file.data, *out_size = file.size;
    return SKV_OK;

memory_more:
    free(globals), free(inverse_binds);
    free(materials.data), free(textures.data), free(images.data), free(nodes.data), free(skins.data), free(anims.data);
memory:
    free(meshes.data), free(accessors.data), free(g.json.data), free(g.bin.data), free(rebased);
    return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
}

skv_result m3d_to_glb(const unsigned char *bytes, size_t size, unsigned char **glb_bytes, size_t *glb_size,
                      skv_error *err)
{
    *glb_bytes = NULL, *glb_size = 0;
    m3d_file f;
    skv_result r = m3d_read(bytes, size, &f, err);
    if (r == SKV_OK) r = write_glb(&f, glb_bytes, glb_size, err);
    m3d_free(&f);
    return r;
}
