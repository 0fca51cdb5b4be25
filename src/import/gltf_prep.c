/* gltf_prep.c - glTF files as the web optimisers leave them, made plain
 * for Assimp (private/gltf_prep.h). Assimp 5.2 and 5.4 read neither
 * KHR_mesh_quantization (integer attributes: it took their bytes for
 * floats, vertices at 1e34) nor EXT_meshopt_compression (it refused the
 * file). Such a file is rewritten in memory, before Assimp sees it, into
 * a glTF binary of one buffer: meshopt buffer views decoded by Debian's
 * meshoptimizer (with their filters), integer vertex attributes and
 * animation outputs turned into floats as the specification says
 * (normalized: c / (2^(n-1) - 1) at least -1, or c / (2^n - 1)), the two
 * extensions dropped from the file's lists. Everything else is left as
 * the file has it. A file that requires an extension nothing here or in
 * Assimp reads is refused by name rather than drawn wrong. */
#define _GNU_SOURCE /* memmem */
#include "private/gltf_prep.h"
#include "private/sandbox.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <meshoptimizer.h>

/* Far past real files, far below what a lying count asks to allocate
 * (each is checked against the bytes it names too). */
enum { PREP_MAX_ELEMENTS = 1 << 26 };

/* Extensions a file may require: Assimp reads them, or this file does. */
static const char *const readable_required[] = {
    "KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_draco_mesh_compression", "KHR_texture_transform",
    "KHR_materials_pbrSpecularGlossiness", "KHR_materials_unlit", "KHR_materials_emissive_strength",
    "KHR_materials_sheen", "KHR_materials_clearcoat", "KHR_materials_transmission", "KHR_materials_volume",
    "KHR_materials_ior", "KHR_materials_specular", "KHR_lights_punctual",
};

static skv_result fail(skv_error *err, const char *format, ...)
{
    char what[300];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return skv_fail(err, SKV_ERR_IMPORT, "glTF: %s", what);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int is_glb(const unsigned char *bytes, size_t size)
{
    return size >= 20 && memcmp(bytes, "glTF", 4) == 0;
}

/* The JSON text of a .gltf or a .glb, and a .glb's BIN chunk. */
static int split_file(const unsigned char *bytes, size_t size, const char **json, size_t *json_size,
                      const unsigned char **bin, size_t *bin_size)
{
    *bin = NULL, *bin_size = 0;
    if (!is_glb(bytes, size)) {
        *json = (const char *)bytes, *json_size = size;
        return 0;
    }
    uint32_t length = get32(bytes + 8), chunk = get32(bytes + 12), type = get32(bytes + 16);
    if (length > size || type != 0x4E4F534Au || chunk > size - 20) return -1;
    *json = (const char *)bytes + 20, *json_size = chunk;
    size_t at = 20 + (size_t)chunk;
    if (at + 8 <= size && get32(bytes + at + 4) == 0x004E4942u) {
        uint32_t bin_length = get32(bytes + at);
        if (bin_length <= size - at - 8) *bin = bytes + at + 8, *bin_size = bin_length;
    }
    return 0;
}

unsigned char *gltf_read_json(const char *path, size_t *size)
{
    *size = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char head[20];
    size_t want = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1L << 30)) {
        want = (size_t)st.st_size;
        if (want >= sizeof head && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head && is_glb(head, sizeof head) &&
            get32(head + 16) == 0x4E4F534Au && get32(head + 12) <= want - sizeof head)
            want = sizeof head + get32(head + 12); /* the header and the JSON chunk */
    }
    unsigned char *bytes = want ? malloc(want) : NULL;
    for (size_t done = 0; bytes && done < want;) {
        ssize_t got = pread(fd, bytes + done, want - done, (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { /* an error, or the file shrank */
            free(bytes);
            bytes = NULL;
        } else {
            done += (size_t)got;
        }
    }
    close(fd);
    if (!bytes) return NULL;
    if (is_glb(bytes, want)) { /* a document of its JSON alone: its length says so */
        bytes[8] = (unsigned char)want, bytes[9] = (unsigned char)(want >> 8);
        bytes[10] = (unsigned char)(want >> 16), bytes[11] = (unsigned char)(want >> 24);
    }
    *size = want;
    return bytes;
}

int gltf_json_names(const unsigned char *bytes, size_t size, const char *word)
{
    const char *json;
    size_t json_size;
    const unsigned char *bin;
    size_t bin_size;
    if (split_file(bytes, size, &json, &json_size, &bin, &bin_size) != 0) return 0;
    return memmem(json, json_size, word, strlen(word)) != NULL;
}

/* The document's JSON parsed (*root, the caller's to cJSON_Delete; NULL
 * on failure) and its binary chunk (NULL and 0 for a .gltf). */
static skv_result parse_document(const unsigned char *bytes, size_t size, cJSON **root, const unsigned char **bin,
                                 size_t *bin_size, skv_error *err)
{
    const char *json;
    size_t json_size;
    *root = NULL;
    if (split_file(bytes, size, &json, &json_size, bin, bin_size) != 0) return fail(err, "a malformed binary glTF");
    *root = cJSON_ParseWithLength(json, json_size);
    return *root ? SKV_OK : fail(err, "its JSON does not parse");
}

static int has_string(const cJSON *array, const char *s)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
        if (cJSON_IsString(item) && strcmp(item->valuestring, s) == 0) return 1;
    return 0;
}

int gltf_prep_wanted(const unsigned char *bytes, size_t size)
{
    const char *json;
    size_t json_size;
    const unsigned char *bin;
    size_t bin_size;
    if (split_file(bytes, size, &json, &json_size, &bin, &bin_size) != 0) return 0;
    /* Cheap before the parse: most files name neither extension. */
    if (!memmem(json, json_size, "KHR_mesh_quantization", 21) && !memmem(json, json_size, "EXT_meshopt_compression", 23) &&
        !memmem(json, json_size, "extensionsRequired", 18))
        return 0;
    return 1;
}

/* --- buffers ----------------------------------------------------------------- */

typedef struct blob {
    unsigned char *bytes;
    size_t size;
    int owned;
} blob;

static int base64_value(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

static int data_uri(const char *uri, blob *out)
{
    const char *comma = strchr(uri, ',');
    if (!comma || !strstr(uri, ";base64")) return -1;
    const char *p = comma + 1;
    size_t n = strlen(p);
    out->bytes = malloc(n / 4 * 3 + 3);
    if (!out->bytes) return -1;
    out->owned = 1, out->size = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *p && *p != '='; p++) {
        int v = base64_value((unsigned char)*p);
        if (v < 0) return -1;
        acc = acc << 6 | (unsigned)v, bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out->bytes[out->size++] = (unsigned char)(acc >> bits);
        }
    }
    return 0;
}

/* A buffer's URI percent-decoded into `out`. */
static void percent_decoded(const char *uri, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = uri; *p && n + 1 < size; p++) {
        int hi, lo;
        if (p[0] == '%' && (hi = p[1] >= 'a' ? p[1] - 'a' + 10 : p[1] >= 'A' ? p[1] - 'A' + 10 : p[1] - '0') >= 0 &&
            hi < 16 && p[2] && (lo = p[2] >= 'a' ? p[2] - 'a' + 10 : p[2] >= 'A' ? p[2] - 'A' + 10 : p[2] - '0') >= 0 &&
            lo < 16) {
            out[n++] = (char)(hi * 16 + lo);
            p += 2;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

/* Buffer `index`'s bytes: the BIN chunk, a data URI, or a file beneath the
 * model's real folder (the rule every file the model names follows). */
static skv_result load_buffer(const char *path, const cJSON *buffer, int index, const unsigned char *bin,
                              size_t bin_size, blob *out, skv_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(buffer, "uri");
    const cJSON *length = cJSON_GetObjectItemCaseSensitive(buffer, "byteLength");
    if (!cJSON_IsNumber(length) || length->valuedouble < 0) return fail(err, "buffer %d has no byteLength", index);
    if (!cJSON_IsString(uri)) {
        /* A meshopt fallback buffer holds nothing: its views are decoded. */
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(buffer, "extensions");
        const cJSON *meshopt = cJSON_GetObjectItemCaseSensitive(ext, "EXT_meshopt_compression");
        if (meshopt || index != 0 || !bin) return SKV_OK;
        out->bytes = (unsigned char *)bin, out->size = bin_size;
        return SKV_OK;
    }
    if (strncmp(uri->valuestring, "data:", 5) == 0) {
        if (data_uri(uri->valuestring, out) != 0) {
            if (out->owned) free(out->bytes);
            memset(out, 0, sizeof *out);
            return fail(err, "buffer %d's data URI is not base64", index);
        }
        return SKV_OK;
    }
    char folder[PATH_MAX], name[PATH_MAX], file[PATH_MAX * 2], real[PATH_MAX];
    sandbox_reach_of(path, folder, sizeof folder);
    percent_decoded(uri->valuestring, name, sizeof name);
    snprintf(file, sizeof file, "%s/%s", folder, name);
    size_t n = strlen(folder);
    if (!realpath(file, real) || strncmp(real, folder, n) != 0 || (real[n] != '/' && real[n] != '\0'))
        return fail(err, "buffer '%.200s' was not read: it is not a file beneath the model's folder", uri->valuestring);
    long size = 0;
    errno = 0;
    out->bytes = read_whole_file(real, &size);
    out->size = (size_t)size, out->owned = 1;
    if (!out->bytes && errno == ENOMEM) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    if (!out->bytes) return fail(err, "buffer '%.200s' cannot be read", uri->valuestring);
    return SKV_OK;
}

/* --- the rewrite ---------------------------------------------------------- */

/* A JSON array as a table: cJSON's arrays are lists, and an index looked
 * up in one walks it (a file of 80,000 animations: quadratic). */
typedef struct table {
    cJSON **items;
    int count;
} table;

static int table_of(cJSON *array, table *t)
{
    t->count = cJSON_GetArraySize(array);
    t->items = malloc(((size_t)t->count + 1) * sizeof *t->items);
    if (!t->items) return -1;
    int i = 0;
    cJSON *item;
    cJSON_ArrayForEach(item, array) t->items[i++] = item;
    return 0;
}

static cJSON *table_at(const table *t, long index)
{
    return index >= 0 && index < t->count ? t->items[index] : NULL;
}

typedef struct prep {
    const char *path;
    cJSON *root;
    table accessors, views_json, nodes; /* the document's arrays, indexed */
    blob *buffers;
    int buffer_count;
    blob *views; /* each buffer view's bytes, decoded where meshopt-compressed */
    int view_count;
    int views_added; /* views appended after the document's own */
    unsigned char *bin; /* the new single buffer */
    size_t bin_size, bin_capacity;
    skv_error *err;
} prep;

static int json_int(const cJSON *object, const char *key, long fallback, long *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!item) {
        *out = fallback;
        return 0;
    }
    if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) || item->valuedouble < 0 ||
        item->valuedouble > (double)LONG_MAX / 2)
        return -1;
    *out = (long)item->valuedouble;
    return 0;
}

int gltf_big_indexed_skin(const unsigned char *bytes, size_t size, long vertices, long bones)
{
    cJSON *root = NULL;
    const unsigned char *bin;
    size_t bin_size;
    skv_error ignored;
    if (parse_document(bytes, size, &root, &bin, &bin_size, &ignored) != SKV_OK) return 0;
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
    int mesh_count = cJSON_GetArraySize(meshes), accessor_count = cJSON_GetArraySize(accessors);
    /* Which meshes a skinned node draws; the most joints a skin has. */
    unsigned char *skinned = calloc((size_t)mesh_count + 1, 1);
    long joints = 0, primitives = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, skins) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(item, "joints"));
        if (n > joints) joints = n;
    }
    cJSON_ArrayForEach(item, nodes) {
        long mesh = -1, skin = -1;
        if (json_int(item, "mesh", -1, &mesh) == 0 && json_int(item, "skin", -1, &skin) == 0 && skin >= 0 &&
            mesh >= 0 && mesh < mesh_count && skinned)
            skinned[mesh] = 1;
    }
    int big = 0, plain = skinned != NULL && cJSON_IsArray(meshes) && cJSON_IsArray(accessors);
    int m = 0;
    cJSON_ArrayForEach(item, meshes) {
        const cJSON *primitive;
        cJSON_ArrayForEach(primitive, cJSON_GetObjectItemCaseSensitive(item, "primitives")) {
            primitives++;
            long mode = 4, position = -1, indices = -1, count = -1, corners = -1;
            const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(primitive, "attributes");
            if (json_int(primitive, "mode", 4, &mode) != 0 || mode != 4 ||
                json_int(attributes, "POSITION", -1, &position) != 0 ||
                json_int(primitive, "indices", -1, &indices) != 0) {
                plain = 0; /* points, lines, strips or fans: Assimp's steps reshape them */
                continue;
            }
            const cJSON *at = position >= 0 && position < accessor_count ? cJSON_GetArrayItem(accessors, (int)position) : NULL;
            const cJSON *ix = indices >= 0 && indices < accessor_count ? cJSON_GetArrayItem(accessors, (int)indices) : NULL;
            if (at && ix && json_int(at, "count", -1, &count) == 0 && json_int(ix, "count", -1, &corners) == 0 &&
                skinned && skinned[m] && cJSON_GetObjectItemCaseSensitive(attributes, "JOINTS_0") && count > vertices &&
                corners >= 2 * count)
                big = 1;
        }
        m++;
    }
    free(skinned);
    cJSON_Delete(root);
    return plain && big && (joints == 0 || primitives <= bones / joints);
}

/* `object`'s `key` set to `item` whether or not it had one (cJSON's
 * replace fails where there is none, and the item would leak). */
static void set_item(cJSON *object, const char *key, cJSON *item)
{
    if (!item) return;
    cJSON_DeleteItemFromObjectCaseSensitive(object, key);
    if (!cJSON_AddItemToObject(object, key, item)) cJSON_Delete(item);
}

static skv_result bin_append(prep *p, const void *bytes, size_t n, size_t *offset)
{
    size_t pad = (4 - p->bin_size % 4) % 4;
    if (p->bin_size + pad + n > p->bin_capacity) {
        size_t cap = p->bin_capacity ? p->bin_capacity : 1 << 16;
        while (cap < p->bin_size + pad + n) cap *= 2;
        unsigned char *grown = realloc(p->bin, cap);
        if (!grown) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
        p->bin = grown, p->bin_capacity = cap;
    }
    if (pad) memset(p->bin + p->bin_size, 0, pad);
    p->bin_size += pad;
    *offset = p->bin_size;
    if (n) memcpy(p->bin + p->bin_size, bytes, n);
    p->bin_size += n;
    return SKV_OK;
}

/* Every buffer view's bytes, meshopt's decoded. */
static skv_result load_views(prep *p)
{
    p->view_count = p->views_json.count;
    p->views = calloc((size_t)p->view_count + 1, sizeof *p->views);
    if (!p->views) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    for (int v = 0; v < p->view_count; v++) {
        cJSON *view = p->views_json.items[v];
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(view, "extensions"),
                                                            "EXT_meshopt_compression");
        const cJSON *source = ext ? ext : view;
        long buffer, offset, length;
        if (json_int(source, "buffer", -1, &buffer) || json_int(source, "byteOffset", 0, &offset) ||
            json_int(source, "byteLength", -1, &length) || buffer < 0 || buffer >= p->buffer_count || length < 0)
            return fail(p->err, "buffer view %d is malformed", v);
        const blob *b = &p->buffers[buffer];
        if (!b->bytes || (size_t)offset > b->size || (size_t)length > b->size - (size_t)offset)
            return fail(p->err, "buffer view %d lies outside its buffer", v);
        if (!ext) {
            p->views[v] = (blob){b->bytes + offset, (size_t)length, 0};
            continue;
        }
        long count, stride;
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(ext, "mode");
        const cJSON *filter = cJSON_GetObjectItemCaseSensitive(ext, "filter");
        if (json_int(ext, "count", -1, &count) || json_int(ext, "byteStride", -1, &stride) || count < 0 ||
            stride <= 0 || stride > 256 || count > PREP_MAX_ELEMENTS || !cJSON_IsString(mode))
            return fail(p->err, "buffer view %d's meshopt compression is malformed", v);
        size_t decoded_size = (size_t)count * (size_t)stride;
        unsigned char *decoded = malloc(decoded_size ? decoded_size : 1);
        if (!decoded) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
        p->views[v] = (blob){decoded, decoded_size, 1};
        const unsigned char *src = b->bytes + offset;
        int rc;
        if (strcmp(mode->valuestring, "ATTRIBUTES") == 0) {
            rc = stride % 4 ? -1 : meshopt_decodeVertexBuffer(decoded, (size_t)count, (size_t)stride, src, (size_t)length);
            const char *f = cJSON_IsString(filter) ? filter->valuestring : "NONE";
            if (rc == 0 && strcmp(f, "OCTAHEDRAL") == 0 && (stride == 4 || stride == 8))
                meshopt_decodeFilterOct(decoded, (size_t)count, (size_t)stride);
            else if (rc == 0 && strcmp(f, "QUATERNION") == 0 && stride == 8)
                meshopt_decodeFilterQuat(decoded, (size_t)count, (size_t)stride);
            else if (rc == 0 && strcmp(f, "EXPONENTIAL") == 0)
                meshopt_decodeFilterExp(decoded, (size_t)count, (size_t)stride);
            else if (rc == 0 && strcmp(f, "NONE") != 0)
                return fail(p->err, "buffer view %d's meshopt filter '%.40s' is not one the extension names", v, f);
        } else if (strcmp(mode->valuestring, "TRIANGLES") == 0 && (stride == 2 || stride == 4) && count % 3 == 0) {
            rc = meshopt_decodeIndexBuffer(decoded, (size_t)count, (size_t)stride, src, (size_t)length);
        } else if (strcmp(mode->valuestring, "INDICES") == 0 && (stride == 2 || stride == 4)) {
            rc = meshopt_decodeIndexSequence(decoded, (size_t)count, (size_t)stride, src, (size_t)length);
        } else {
            return fail(p->err, "buffer view %d's meshopt mode '%.40s' is not one the extension names", v,
                        mode->valuestring);
        }
        if (rc != 0) return fail(p->err, "buffer view %d's meshopt data does not decode", v);
    }
    return SKV_OK;
}

/* Component size and range, by glTF componentType. */
static int component_bytes(long type)
{
    switch (type) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static double component_value(const unsigned char *p, long type, int normalized)
{
    switch (type) {
    case 5120: { int8_t v = (int8_t)p[0]; return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: return normalized ? p[0] / 255.0 : p[0];
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? v / 65535.0 : v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return normalized ? v / 4294967295.0 : v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

static int type_components(const char *type)
{
    static const struct { const char *name; int n; } types[] = {
        {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i].name) == 0) return types[i].n;
    return 0;
}

/* Accessor `index`'s elements as floats (*floats malloc'd, *count
 * elements of *components): integers converted as the specification
 * says, normalized or not; an accessor without a buffer view is zeros. */
static skv_result read_floats(prep *p, int index, long *count_out, int *components_out, float **floats_out,
                              long *type_out, int *normalized_out)
{
    *floats_out = NULL;
    cJSON *accessor = table_at(&p->accessors, index);
    if (!accessor) return fail(p->err, "accessor %d is named but not there", index);
    long type, count, view, offset;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(accessor, "type");
    if (json_int(accessor, "componentType", -1, &type) || json_int(accessor, "count", -1, &count) ||
        json_int(accessor, "bufferView", -1, &view) || json_int(accessor, "byteOffset", 0, &offset) ||
        !cJSON_IsString(kind) || count < 0 || count > PREP_MAX_ELEMENTS)
        return fail(p->err, "accessor %d is malformed", index);
    int bytes = component_bytes(type), components = type_components(kind->valuestring);
    if (!bytes || !components) return fail(p->err, "accessor %d's type is not one glTF has", index);
    if (cJSON_GetObjectItemCaseSensitive(accessor, "sparse"))
        return fail(p->err, "accessor %d is sparse, which is not read here", index);
    int normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(accessor, "normalized"));
    size_t element = (size_t)bytes * (size_t)components, stride = element;
    float *floats = malloc((size_t)count * (size_t)components * sizeof(float) + 1);
    if (!floats) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    if (view >= 0) {
        if (view >= p->view_count) {
            free(floats);
            return fail(p->err, "accessor %d's buffer view is not there", index);
        }
        long view_stride;
        cJSON *v = table_at(&p->views_json, view);
        if (json_int(v, "byteStride", 0, &view_stride) == 0 && view_stride > 0) stride = (size_t)view_stride;
        const blob *data = &p->views[view];
        if (count > 0 && ((size_t)offset > data->size ||
                          (size_t)(count - 1) * stride + element > data->size - (size_t)offset)) {
            free(floats);
            return fail(p->err, "accessor %d reads past its buffer view", index);
        }
        /* Matrices' columns are 4-byte aligned for 1- and 2-byte types: not
         * in vertex attributes or animation outputs, the only ones here. */
        for (long e = 0; e < count; e++)
            for (int c = 0; c < components; c++)
                floats[e * components + c] =
                    (float)component_value(data->bytes + offset + (size_t)e * stride + (size_t)c * bytes, type, normalized);
    } else {
        memset(floats, 0, (size_t)count * (size_t)components * sizeof(float));
    }
    *count_out = count, *components_out = components, *floats_out = floats;
    if (type_out) *type_out = type;
    if (normalized_out) *normalized_out = normalized;
    return SKV_OK;
}

/* Accessor `index` as floats, in a buffer view of its own. */
static skv_result to_float(prep *p, int index)
{
    cJSON *accessor = table_at(&p->accessors, index);
    long type0;
    if (!accessor) return fail(p->err, "accessor %d is named but not there", index);
    if (json_int(accessor, "componentType", -1, &type0) == 0 && type0 == 5126) return SKV_OK;
    long count = 0, type = 0;
    int components = 0, normalized = 0;
    float *floats = NULL;
    skv_result read = read_floats(p, index, &count, &components, &floats, &type, &normalized);
    if (read != SKV_OK) return read;
    size_t at;
    skv_result r = bin_append(p, floats, (size_t)count * (size_t)components * sizeof(float), &at);
    free(floats);
    if (r != SKV_OK) return r;
    cJSON *views = cJSON_GetObjectItemCaseSensitive(p->root, "bufferViews");
    cJSON *fresh = cJSON_CreateObject();
    if (!fresh || !cJSON_AddNumberToObject(fresh, "buffer", 0) || !cJSON_AddNumberToObject(fresh, "byteOffset", (double)at) ||
        !cJSON_AddNumberToObject(fresh, "byteLength", (double)((size_t)count * (size_t)components * 4))) {
        cJSON_Delete(fresh);
        return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    }
    if (!cJSON_IsArray(views) || !cJSON_AddItemToArray(views, fresh)) {
        cJSON_Delete(fresh);
        return fail(p->err, "accessor %d has no buffer views to join", index);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(accessor, "bufferView");
    cJSON_DeleteItemFromObjectCaseSensitive(accessor, "byteOffset");
    cJSON_DeleteItemFromObjectCaseSensitive(accessor, "normalized");
    cJSON_AddNumberToObject(accessor, "bufferView", p->views_json.count + p->views_added++);
    set_item(accessor, "componentType", cJSON_CreateNumber(5126));
    /* min and max: the same values, as floats. */
    static const char *const bounds[2] = {"min", "max"};
    for (int i = 0; i < 2; i++) {
        cJSON *bound = cJSON_GetObjectItemCaseSensitive(accessor, bounds[i]), *value;
        if (!normalized) continue;
        cJSON_ArrayForEach(value, bound) {
            if (!cJSON_IsNumber(value)) continue;
            double limit = type == 5120 ? 127.0 : type == 5121 ? 255.0 : type == 5122 ? 32767.0 : type == 5123 ? 65535.0 : 4294967295.0;
            double v = value->valuedouble / limit;
            cJSON_SetNumberHelper(value, v < -1.0 ? -1.0 : v);
        }
    }
    return SKV_OK;
}

/* Every accessor a mesh attribute (morph targets' too, JOINTS_n aside:
 * indices by definition) or an animation output uses, as floats. Those of
 * Draco-compressed primitives are Assimp's to decode. */
static skv_result accessors_to_float(prep *p)
{
    cJSON *mesh, *primitive, *attribute, *target, *animation, *sampler;
    cJSON_ArrayForEach(mesh, cJSON_GetObjectItemCaseSensitive(p->root, "meshes"))
        cJSON_ArrayForEach(primitive, cJSON_GetObjectItemCaseSensitive(mesh, "primitives")) {
            if (cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(primitive, "extensions"),
                                                 "KHR_draco_mesh_compression"))
                continue;
            cJSON_ArrayForEach(attribute, cJSON_GetObjectItemCaseSensitive(primitive, "attributes"))
                if (cJSON_IsNumber(attribute) && attribute->string && /* no name: an array, not attributes */
                    strncmp(attribute->string, "JOINTS_", 7) != 0 &&
                    to_float(p, attribute->valueint) != SKV_OK)
                    return SKV_ERR_IMPORT;
            cJSON_ArrayForEach(target, cJSON_GetObjectItemCaseSensitive(primitive, "targets"))
                cJSON_ArrayForEach(attribute, target)
                    if (cJSON_IsNumber(attribute) && to_float(p, attribute->valueint) != SKV_OK) return SKV_ERR_IMPORT;
        }
    cJSON_ArrayForEach(animation, cJSON_GetObjectItemCaseSensitive(p->root, "animations"))
        cJSON_ArrayForEach(sampler, cJSON_GetObjectItemCaseSensitive(animation, "samplers")) {
            const cJSON *output = cJSON_GetObjectItemCaseSensitive(sampler, "output");
            if (cJSON_IsNumber(output) && to_float(p, output->valueint) != SKV_OK) return SKV_ERR_IMPORT;
        }
    return SKV_OK;
}

/* Index the document's arrays that are looked up by number. */
static skv_result prep_index(prep *p)
{
    if (table_of(cJSON_GetObjectItemCaseSensitive(p->root, "accessors"), &p->accessors) ||
        table_of(cJSON_GetObjectItemCaseSensitive(p->root, "bufferViews"), &p->views_json) ||
        table_of(cJSON_GetObjectItemCaseSensitive(p->root, "nodes"), &p->nodes))
        return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    return SKV_OK;
}

/* Every buffer's bytes: the GLB's own chunk, embedded data or a file beside. */
static skv_result prep_buffers(prep *p, const unsigned char *bin, size_t bin_size)
{
    cJSON *buffers = cJSON_GetObjectItemCaseSensitive(p->root, "buffers");
    p->buffer_count = cJSON_GetArraySize(buffers);
    p->buffers = calloc((size_t)p->buffer_count + 1, sizeof *p->buffers);
    if (!p->buffers) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    int b = 0;
    const cJSON *buffer;
    cJSON_ArrayForEach(buffer, buffers) {
        skv_result r = load_buffer(p->path, buffer, b, bin, bin_size, &p->buffers[b], p->err);
        if (r != SKV_OK) return r;
        b++;
    }
    return SKV_OK;
}

static void prep_free(prep *p)
{
    for (int b = 0; p->buffers && b < p->buffer_count; b++)
        if (p->buffers[b].owned) free(p->buffers[b].bytes);
    for (int v = 0; p->views && v < p->view_count; v++)
        if (p->views[v].owned) free(p->views[v].bytes);
    free(p->buffers), free(p->views), free(p->bin);
    free(p->accessors.items), free(p->views_json.items), free(p->nodes.items);
    cJSON_Delete(p->root);
}

static void drop_from_list(cJSON *root, const char *list, const char *name)
{
    cJSON *array = cJSON_GetObjectItemCaseSensitive(root, list);
    for (int i = cJSON_GetArraySize(array) - 1; i >= 0; i--) {
        cJSON *item = cJSON_GetArrayItem(array, i);
        if (cJSON_IsString(item) && strcmp(item->valuestring, name) == 0) cJSON_DeleteItemFromArray(array, i);
    }
}

static skv_result check_required(const cJSON *root, skv_error *err)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "extensionsRequired")) {
        if (!cJSON_IsString(item)) return fail(err, "extensionsRequired holds a value that is not a name");
        int known = 0;
        for (size_t i = 0; i < sizeof readable_required / sizeof readable_required[0]; i++)
            known |= strcmp(item->valuestring, readable_required[i]) == 0;
        if (!known)
            return fail(err, "the file requires the extension %.80s, which Skinview does not read", item->valuestring);
    }
    return SKV_OK;
}

static skv_result rewrite(prep *p, unsigned char **out, size_t *out_size)
{
    skv_result r = load_views(p);
    /* Every view into the new buffer, in order, rebased. */
    for (int v = 0; r == SKV_OK && v < p->view_count; v++) {
        size_t at;
        r = bin_append(p, p->views[v].bytes, p->views[v].size, &at);
        if (r != SKV_OK) break;
        cJSON *view = p->views_json.items[v];
        cJSON_DeleteItemFromObjectCaseSensitive(view, "extensions");
        set_item(view, "buffer", cJSON_CreateNumber(0));
        cJSON_DeleteItemFromObjectCaseSensitive(view, "byteOffset");
        cJSON_AddNumberToObject(view, "byteOffset", (double)at);
        set_item(view, "byteLength", cJSON_CreateNumber((double)p->views[v].size));
    }
    if (r == SKV_OK) r = accessors_to_float(p);
    if (r != SKV_OK) return r;
    cJSON *buffers = cJSON_CreateArray(), *one = cJSON_CreateObject();
    if (!buffers || !one || !cJSON_AddNumberToObject(one, "byteLength", (double)p->bin_size)) {
        cJSON_Delete(buffers), cJSON_Delete(one);
        return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    }
    cJSON_AddItemToArray(buffers, one);
    set_item(p->root, "buffers", buffers);
    drop_from_list(p->root, "extensionsUsed", "KHR_mesh_quantization");
    drop_from_list(p->root, "extensionsUsed", "EXT_meshopt_compression");
    drop_from_list(p->root, "extensionsRequired", "KHR_mesh_quantization");
    drop_from_list(p->root, "extensionsRequired", "EXT_meshopt_compression");
    char *json = cJSON_PrintUnformatted(p->root);
    if (!json) return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    size_t json_size = strlen(json), json_padded = json_size + (4 - json_size % 4) % 4;
    size_t bin_padded = p->bin_size + (4 - p->bin_size % 4) % 4;
    size_t total = 12 + 8 + json_padded + 8 + bin_padded;
    unsigned char *file = total <= UINT32_MAX ? malloc(total) : NULL;
    if (!file) {
        free(json);
        return total > UINT32_MAX ? fail(p->err, "the file is too large to rewrite")
                                  : skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    }
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)json_padded, 0x4E4F534Au};
    memcpy(file, head, sizeof head);
    memcpy(file + 20, json, json_size);
    memset(file + 20 + json_size, ' ', json_padded - json_size);
    uint32_t bin_head[2] = {(uint32_t)bin_padded, 0x004E4942u};
    memcpy(file + 20 + json_padded, bin_head, sizeof bin_head);
    if (p->bin_size) memcpy(file + 28 + json_padded, p->bin, p->bin_size);
    memset(file + 28 + json_padded + p->bin_size, 0, bin_padded - p->bin_size);
    free(json);
    *out = file, *out_size = total;
    return SKV_OK;
}

skv_result gltf_prep(const char *path, const unsigned char *bytes, size_t size, unsigned char **out, size_t *out_size,
                     skv_error *err)
{
    *out = NULL, *out_size = 0;
    const unsigned char *bin;
    size_t bin_size;
    prep p = {.path = path, .err = err};
    skv_result r = parse_document(bytes, size, &p.root, &bin, &bin_size, err);
    if (r != SKV_OK) return r;
    r = check_required(p.root, err);
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(p.root, "extensionsUsed");
    int wanted = has_string(used, "KHR_mesh_quantization") || has_string(used, "EXT_meshopt_compression");
    if (r == SKV_OK && wanted) r = prep_index(&p);
    if (r == SKV_OK && wanted) r = prep_buffers(&p, bin, bin_size);
    if (r == SKV_OK && wanted) r = rewrite(&p, out, out_size);
    prep_free(&p);
    return r;
}

/* --- the samplers' curves -------------------------------------------------- */

void gltf_curves_free(gltf_curves *c)
{
    if (!c) return;
    for (int a = 0; a < c->clip_count; a++) {
        for (int t = 0; t < c->clips[a].track_count; t++) {
            gltf_track *tr = &c->clips[a].tracks[t];
            free(tr->times), free(tr->values), free(tr->tangents);
        }
        free(c->clips[a].tracks);
    }
    free(c->clips);
    memset(c, 0, sizeof *c);
}

/* One channel's track: its target node's name, path, the sampler's
 * interpolation, times and values; CUBICSPLINE's outputs (in-tangent,
 * value, out-tangent per key) split into values and tangents. */
static skv_result read_track(prep *p, const table *samplers, const cJSON *channel, gltf_track *tr)
{
    memset(tr, 0, sizeof *tr);
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(target, "path");
    long node, sampler_index;
    if (!cJSON_IsString(path) || json_int(target, "node", -1, &node) || node < 0 ||
        json_int(channel, "sampler", -1, &sampler_index) || sampler_index < 0)
        return SKV_OK; /* no node (an extension's target): not a track */
    static const char *const paths[4] = {"translation", "rotation", "scale", "weights"};
    tr->path = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(path->valuestring, paths[k]) == 0) tr->path = k;
    const cJSON *node_json = table_at(&p->nodes, node);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node_json, "name");
    const cJSON *sampler = table_at(samplers, sampler_index);
    if (tr->path < 0 || !node_json || !sampler) return SKV_OK;
    snprintf(tr->node, sizeof tr->node, "%s", cJSON_IsString(name) ? name->valuestring : "");
    const cJSON *interpolation = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *how = cJSON_IsString(interpolation) ? interpolation->valuestring : "LINEAR";
    tr->mode = strcmp(how, "STEP") == 0 ? GLTF_STEP : strcmp(how, "CUBICSPLINE") == 0 ? GLTF_CUBIC : GLTF_LINEAR;
    long input, output;
    if (json_int(sampler, "input", -1, &input) || json_int(sampler, "output", -1, &output) || input < 0 || output < 0)
        return fail(p->err, "a sampler without its input or output");
    long times_count = 0, values_count = 0;
    int time_width = 0, width = 0;
    float *times = NULL, *values = NULL;
    skv_result r = read_floats(p, (int)input, &times_count, &time_width, &times, NULL, NULL);
    if (r == SKV_OK) r = read_floats(p, (int)output, &values_count, &width, &values, NULL, NULL);
    if (r != SKV_OK) {
        free(times), free(values);
        return r;
    }
    long per_key = tr->mode == GLTF_CUBIC ? 3 : 1;
    /* Weights: a scalar output holds every target's weight per key. */
    if (tr->path == 3 && width == 1 && times_count > 0 && values_count % (times_count * per_key) == 0) {
        width = (int)(values_count / (times_count * per_key));
        values_count = times_count * per_key;
    }
    int want = tr->path == 1 ? 4 : tr->path == 3 ? width : 3;
    if (time_width != 1 || times_count < 1 || width != want || width < 1 || values_count != times_count * per_key) {
        free(times), free(values);
        return fail(p->err, "a sampler whose times and values do not pair up");
    }
    tr->count = (int)times_count, tr->width = width;
    tr->times = malloc((size_t)times_count * sizeof *tr->times);
    tr->values = malloc((size_t)times_count * (size_t)width * sizeof *tr->values);
    tr->tangents = tr->mode == GLTF_CUBIC ? malloc((size_t)times_count * 2 * (size_t)width * sizeof(float)) : NULL;
    if (!tr->times || !tr->values || (tr->mode == GLTF_CUBIC && !tr->tangents)) {
        free(times), free(values);
        return skv_fail(p->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (long k = 0; k < times_count; k++) {
        tr->times[k] = times[k];
        if (!isfinite(tr->times[k]) || (k > 0 && !(tr->times[k] > tr->times[k - 1]))) {
            free(times), free(values);
            return fail(p->err, "a sampler's times do not increase");
        }
        const float *key = values + (size_t)k * (size_t)per_key * (size_t)width;
        if (tr->mode == GLTF_CUBIC) {
            memcpy(tr->tangents + (size_t)k * 2 * width, key, (size_t)width * sizeof(float));             /* in */
            memcpy(tr->values + (size_t)k * width, key + width, (size_t)width * sizeof(float));          /* value */
            memcpy(tr->tangents + ((size_t)k * 2 + 1) * width, key + 2 * width, (size_t)width * sizeof(float)); /* out */
        } else {
            memcpy(tr->values + (size_t)k * width, key, (size_t)width * sizeof(float));
        }
    }
    free(times), free(values);
    for (size_t i = 0; i < (size_t)tr->count * (size_t)width; i++)
        if (!isfinite(tr->values[i]) || (tr->tangents && (!isfinite(tr->tangents[2 * i]) || !isfinite(tr->tangents[2 * i + 1]))))
            return fail(p->err, "a sampler holds a value that is not finite");
    return SKV_OK;
}

skv_result gltf_curves_read(const char *path, const unsigned char *bytes, size_t size, gltf_curves *out, skv_error *err)
{
    memset(out, 0, sizeof *out);
    const unsigned char *bin;
    size_t bin_size;
    prep p = {.path = path, .err = err};
    skv_result parsed = parse_document(bytes, size, &p.root, &bin, &bin_size, err);
    if (parsed != SKV_OK) return parsed;
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(p.root, "animations");
    skv_result r = SKV_OK;
    int count = cJSON_GetArraySize(animations);
    if (count > 0) {
        out->clips = calloc((size_t)count, sizeof *out->clips);
        if (!out->clips) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        else out->clip_count = count;
        if (r == SKV_OK) r = prep_index(&p);
        if (r == SKV_OK) r = prep_buffers(&p, bin, bin_size);
        if (r == SKV_OK) r = load_views(&p);
    }
    int a = 0;
    cJSON *animation;
    cJSON_ArrayForEach(animation, animations) {
        if (r != SKV_OK) break;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(animation, "name");
        gltf_clip *clip = &out->clips[a++];
        snprintf(clip->name, sizeof clip->name, "%s", cJSON_IsString(name) ? name->valuestring : "");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animation, "channels");
        table samplers;
        clip->tracks = calloc((size_t)cJSON_GetArraySize(channels) + 1, sizeof *clip->tracks);
        if (!clip->tracks || table_of(cJSON_GetObjectItemCaseSensitive(animation, "samplers"), &samplers)) {
            r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            break;
        }
        const cJSON *channel;
        cJSON_ArrayForEach(channel, channels) {
            gltf_track *tr = &clip->tracks[clip->track_count];
            r = read_track(&p, &samplers, channel, tr);
            if (r == SKV_OK && tr->count > 0) clip->track_count++;
            else free(tr->times), free(tr->values), free(tr->tangents);
            if (r != SKV_OK) break;
        }
        free(samplers.items);
    }
    prep_free(&p);
    if (r != SKV_OK) gltf_curves_free(out);
    return r;
}

/* --- texture transforms ------------------------------------------------------ */

/* A number array of `n` (defaults kept where absent); -1 where present
 * but not n finite numbers. */
static int read_numbers(const cJSON *object, const char *key, int n, float *out)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!array) return 0;
    if (n == 1) {
        if (!cJSON_IsNumber(array) || !isfinite(array->valuedouble)) return -1;
        out[0] = (float)array->valuedouble;
        return isfinite(out[0]) ? 0 : -1;
    }
    if (cJSON_GetArraySize(array) != n) return -1;
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array) {
        if (!cJSON_IsNumber(item)) return -1;
        out[i] = (float)item->valuedouble;
        if (!isfinite(out[i++])) return -1;
    }
    return 0;
}

skv_result gltf_uv_transforms_read(const unsigned char *bytes, size_t size, gltf_uv_transform **out, int *count,
                                   skv_error *err)
{
    *out = NULL, *count = 0;
    cJSON *root;
    const unsigned char *bin;
    size_t bin_size;
    skv_result parsed = parse_document(bytes, size, &root, &bin, &bin_size, err);
    if (parsed != SKV_OK) return parsed;
    const cJSON *materials = cJSON_GetObjectItemCaseSensitive(root, "materials");
    /* Where each slot's textureInfo sits in a material (model.h's order). */
    static const char *const slot_parent[5] = {"pbrMetallicRoughness", "pbrMetallicRoughness", NULL, NULL, NULL};
    static const char *const slot_key[5] = {"baseColorTexture", "metallicRoughnessTexture", "normalTexture",
                                            "occlusionTexture", "emissiveTexture"};
    size_t capacity = (size_t)cJSON_GetArraySize(materials) * 5;
    gltf_uv_transform *list = capacity ? calloc(capacity, sizeof *list) : NULL;
    skv_result r = capacity && !list ? skv_fail(err, SKV_ERR_MEMORY, "out of memory") : SKV_OK;
    int n = 0, m = 0;
    const cJSON *material;
    cJSON_ArrayForEach(material, materials) {
        for (int slot = 0; r == SKV_OK && slot < 5; slot++) {
            const cJSON *parent = slot_parent[slot] ? cJSON_GetObjectItemCaseSensitive(material, slot_parent[slot]) : material;
            const cJSON *info = cJSON_GetObjectItemCaseSensitive(parent, slot_key[slot]);
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(info, "extensions"),
                                                                "KHR_texture_transform");
            if (!cJSON_IsObject(ext)) continue;
            gltf_uv_transform *t = &list[n];
            *t = (gltf_uv_transform){.material = m, .slot = slot, .scale = {1.0f, 1.0f}};
            if (read_numbers(ext, "offset", 2, t->offset) || read_numbers(ext, "rotation", 1, &t->rotation) ||
                read_numbers(ext, "scale", 2, t->scale))
                r = fail(err, "material %d's %s has a KHR_texture_transform that is not numbers", m, slot_key[slot]);
            else n++;
        }
        m++;
    }
    cJSON_Delete(root);
    if (r != SKV_OK || n == 0) {
        free(list);
        return r;
    }
    *out = list, *count = n;
    return SKV_OK;
}
