/* upload.c - the model's vertex buffers, morph targets, influence lists
 * and material textures on the GPU, each with its destroy. */
#include "upload.h"

#include <stdlib.h>
#include <string.h>

#include "mips.h"
#include "skv_limits.h"

int upload_vertex_count(const skv_renderer *renderer, const skv_model *model)
{
    return renderer->draws.split ? renderer->draws.vertex_count : model->vertex_count;
}

/* Colour maps (base colour, emissive) hold sRGB values: GL_SRGB8_ALPHA8
 * makes the sampler return linear ones (and filters them in linear).
 * Data maps (metal-rough, normal, occlusion) are linear as they are.
 * The mipmaps are made here, not by glGenerateMipmap (mips.h says why);
 * where memory for them runs out, the driver makes them after all. */
static GLuint upload_texture(const skv_texture *tex, int srgb)
{
    GLuint id;
    GLenum format = srgb ? GL_SRGB8_ALPHA8 : GL_RGBA8;
    glGenTextures(1, &id);
    glBindTexture(GL_TEXTURE_2D, id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)format, tex->width, tex->height, 0, GL_RGBA, GL_UNSIGNED_BYTE, tex->rgba);
    skv_mips mips;
    if (mips_create(&mips, tex->rgba, tex->width, tex->height, srgb) == SKV_OK) {
        for (int l = 0; l < mips.count; l++)
            glTexImage2D(GL_TEXTURE_2D, l + 1, (GLint)format, mips.width[l], mips.height[l], 0, GL_RGBA,
                         GL_UNSIGNED_BYTE, mips.texels + mips.offset[l]);
        mips_destroy(&mips);
    } else {
        glGenerateMipmap(GL_TEXTURE_2D);
    }
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    return id;
}

/* Uploads `components` floats per vertex and points `location` at the
 * first (up to) 4 of them; with `source` (split mode), vertex i of the
 * buffer is model vertex source[i]. Returns -1 when memory runs out. */
static int float_attribute(GLuint buffer, GLuint location, int components, const float *data, int vertex_count,
                           const int *source)
{
    float *gathered = NULL;
    if (source) {
        gathered = malloc((size_t)vertex_count * (size_t)components * sizeof *gathered);
        if (!gathered) return -1;
        for (int v = 0; v < vertex_count; v++)
            memcpy(&gathered[(size_t)v * components], &data[(size_t)source[v] * components], (size_t)components * sizeof(float));
        data = gathered;
    }
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)vertex_count * components * (GLsizeiptr)sizeof(float), data, GL_STATIC_DRAW);
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, components < 4 ? components : 4, GL_FLOAT, GL_FALSE,
                          components * (GLsizei)sizeof(float), NULL);
    free(gathered);
    return 0;
}

skv_result vertex_buffers_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    const skv_draw_set *set = &renderer->draws;
    glGenVertexArrays(1, &renderer->vao);
    glBindVertexArray(renderer->vao);
    glGenBuffers(6, renderer->buffers);
    /* Split mode draws copies of model vertices with draw-local bone IDs. */
    int nv = upload_vertex_count(renderer, model);
    const int *source = set->split ? set->source_vertex : NULL;
    const uint16_t *bone_ids = set->split ? set->bone_ids : model->bone_ids;
    const int slots = model->influence_slots;
    int gathered = float_attribute(renderer->buffers[0], SKV_ATTR_POSITION, 3, model->positions, nv, source) |
                   float_attribute(renderer->buffers[1], SKV_ATTR_NORMAL, 3, model->normals, nv, source) |
                   float_attribute(renderer->buffers[2], SKV_ATTR_UV, 2, model->uvs, nv, source) |
                   float_attribute(renderer->buffers[4], SKV_ATTR_WEIGHTS, slots, model->weights, nv, source);
    if (model->tangents)
        gathered |= float_attribute(renderer->buffers[5], SKV_ATTR_TANGENT, 4, model->tangents, nv, source);
    /* With 8 slots the weight buffer holds two vec4 per vertex: the
     * second is its own attribute. */
    GLsizei weight_stride = slots * (GLsizei)sizeof(float);
    if (slots > 4) {
        glEnableVertexAttribArray(SKV_ATTR_WEIGHTS_1);
        glVertexAttribPointer(SKV_ATTR_WEIGHTS_1, 4, GL_FLOAT, GL_FALSE, weight_stride, (void *)(4 * sizeof(float)));
    }
    /* Bone IDs stay integers all the way: glVertexAttribIPointer, ivec4. */
    GLsizei id_stride = slots * (GLsizei)sizeof(uint16_t);
    glBindBuffer(GL_ARRAY_BUFFER, renderer->buffers[3]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)nv * id_stride, bone_ids, GL_STATIC_DRAW);
    glEnableVertexAttribArray(SKV_ATTR_BONE_IDS);
    glVertexAttribIPointer(SKV_ATTR_BONE_IDS, 4, GL_UNSIGNED_SHORT, id_stride, NULL);
    if (slots > 4) {
        glEnableVertexAttribArray(SKV_ATTR_BONE_IDS_1);
        glVertexAttribIPointer(SKV_ATTR_BONE_IDS_1, 4, GL_UNSIGNED_SHORT, id_stride, (void *)(4 * sizeof(uint16_t)));
    }

    glGenBuffers(1, &renderer->index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, renderer->index_buffer);
    int index_count = set->split ? set->index_count : model->index_count;
    const uint32_t *indices = set->split ? set->indices : model->indices;
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)index_count * (GLsizeiptr)sizeof(uint32_t), indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    if (gathered) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    return SKV_OK;
}

void vertex_buffers_destroy(skv_renderer *renderer)
{
    if (renderer->vao) glDeleteVertexArrays(1, &renderer->vao);
    if (renderer->buffers[0]) glDeleteBuffers(6, renderer->buffers);
    if (renderer->index_buffer) glDeleteBuffers(1, &renderer->index_buffer);
    renderer->vao = renderer->index_buffer = 0;
    memset(renderer->buffers, 0, sizeof renderer->buffers);
}

/* A GPU that cannot hold the morph targets shows as a GL error (the one
 * render_create reports). */
skv_result morph_buffers_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    const skv_draw_set *set = &renderer->draws;
    const int gpu_vertices = upload_vertex_count(renderer, model);
    const int *source = set->split ? set->source_vertex : NULL;
    renderer->morph = 1;
    glGenBuffers(3, renderer->morph_buffers);
    glGenTextures(2, renderer->morph_textures);
    /* Two RGBA32F texels per pair (RGB32F buffer textures are GL 4.0). */
    size_t pairs = (size_t)model->morph_delta_count;
    float *texels = malloc((pairs > 0 ? pairs : 1) * 8 * sizeof(float));
    int *vertex = malloc((size_t)(gpu_vertices > 0 ? gpu_vertices : 1) * sizeof(int));
    if (!texels || !vertex) {
        free(texels);
        free(vertex);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < pairs; i++) {
        memcpy(&texels[i * 8], &model->morph_position_deltas[i * 3], 3 * sizeof(float));
        memcpy(&texels[i * 8 + 4], &model->morph_normal_deltas[i * 3], 3 * sizeof(float));
        texels[i * 8 + 3] = texels[i * 8 + 7] = 0.0f;
    }
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->morph_buffers[0]);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)((pairs > 0 ? pairs : 1) * 8 * sizeof(float)), texels, GL_STATIC_DRAW);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->morph_textures[0]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, renderer->morph_buffers[0]);
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->morph_buffers[1]);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)model->morph_target_count * (GLsizeiptr)sizeof(float),
                 model->morph_default_weights, GL_DYNAMIC_DRAW);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->morph_textures[1]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, renderer->morph_buffers[1]);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    /* Split mode's copies keep the index of the vertex they copy. */
    for (int v = 0; v < gpu_vertices; v++) vertex[v] = source ? source[v] : v;
    glBindVertexArray(renderer->vao);
    glBindBuffer(GL_ARRAY_BUFFER, renderer->morph_buffers[2]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)gpu_vertices * (GLsizeiptr)sizeof(int), vertex, GL_STATIC_DRAW);
    glEnableVertexAttribArray(SKV_ATTR_VERTEX);
    glVertexAttribIPointer(SKV_ATTR_VERTEX, 1, GL_INT, sizeof(int), NULL);
    glBindVertexArray(0);
    free(texels);
    free(vertex);
    return SKV_OK;
}

void morph_buffers_destroy(skv_renderer *renderer)
{
    if (renderer->morph_buffers[0]) glDeleteBuffers(3, renderer->morph_buffers);
    if (renderer->morph_textures[0]) glDeleteTextures(2, renderer->morph_textures);
    memset(renderer->morph_buffers, 0, sizeof renderer->morph_buffers);
    memset(renderer->morph_textures, 0, sizeof renderer->morph_textures);
    renderer->morph = 0;
}

/* Each GPU vertex's start in the pair list (R32I, vertex count + 1) and
 * the (bone, weight) pairs (RG32F; bone indices are exact as floats below
 * 2^24): the model's own lists, or in split mode the draw set's, whose
 * bones are draw-local (draws.h). */
skv_result influence_lists_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    const skv_draw_set *set = &renderer->draws;
    const int vertices = upload_vertex_count(renderer, model);
    const int *starts = set->split ? set->list_start : model->influence_start;
    const skv_influence *list = set->split ? set->list_pairs : model->influences;
    /* Past the driver's buffer-texture size a fetch reads 0: a model
     * whose lists do not fit is refused, not drawn torn. */
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    long long texels = starts[vertices] > (long long)vertices + 1 ? starts[vertices] : (long long)vertices + 1;
    if (texels > max_texels) {
        renderer->lists_too_large = texels, renderer->max_list_texels = (int)max_texels;
        return skv_fail(err, SKV_ERR_GPU, "--influences all: %lld texels of influence lists, the GPU takes %d", texels,
                        (int)max_texels);
    }
    size_t pairs = (size_t)starts[vertices];
    float *pair_texels = malloc((pairs > 0 ? pairs : 1) * 2 * sizeof(float));
    if (!pair_texels) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (size_t i = 0; i < pairs; i++) {
        pair_texels[2 * i] = (float)list[i].bone;
        pair_texels[2 * i + 1] = list[i].weight;
    }
    glGenBuffers(2, renderer->influence_buffers);
    glGenTextures(2, renderer->influence_textures);
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->influence_buffers[0]);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)((size_t)vertices + 1) * (GLsizeiptr)sizeof(int), starts,
                 GL_STATIC_DRAW);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->influence_textures[0]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_R32I, renderer->influence_buffers[0]);
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->influence_buffers[1]);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)((pairs > 0 ? pairs : 1) * 2 * sizeof(float)), pair_texels,
                 GL_STATIC_DRAW);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->influence_textures[1]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32F, renderer->influence_buffers[1]);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    free(pair_texels);
    return SKV_OK;
}

void influence_lists_destroy(skv_renderer *renderer)
{
    if (renderer->influence_buffers[0]) glDeleteBuffers(2, renderer->influence_buffers);
    if (renderer->influence_textures[0]) glDeleteTextures(2, renderer->influence_textures);
    memset(renderer->influence_buffers, 0, sizeof renderer->influence_buffers);
    memset(renderer->influence_textures, 0, sizeof renderer->influence_textures);
}

skv_result material_textures_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    renderer->texture_count = model->texture_count;
    if (model->texture_count == 0) return SKV_OK;
    renderer->textures = calloc((size_t)model->texture_count, sizeof *renderer->textures);
    renderer->data_textures = calloc((size_t)model->texture_count, sizeof *renderer->data_textures);
    unsigned char *use = calloc((size_t)model->texture_count, 1); /* 1: as colour, 2: as data */
    if (!renderer->textures || !renderer->data_textures || !use) {
        free(use);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int i = 0; i < model->material_count; i++)
        for (int k = 0; k < SKV_TEX_SLOTS; k++) {
            int t = model->materials[i].textures[k];
            if (t >= 0 && t < model->texture_count) use[t] |= k == SKV_TEX_BASE_COLOR || k == SKV_TEX_EMISSIVE ? 1 : 2;
        }
    /* The importer refuses textures past 16384 texels a side; a driver
     * may take less (GL 3.3 promises 1024), and an upload past its
     * limit is a GL error: such textures draw in the material colour. */
    GLint max_side = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
    for (int t = 0; t < model->texture_count; t++) {
        const skv_texture *tex = &model->textures[t];
        int fits = tex->width <= max_side && tex->height <= max_side;
        renderer->textures[t] = tex->rgba && fits && (use[t] & 1) ? upload_texture(tex, 1) : 0;
        renderer->data_textures[t] = tex->rgba && fits && (use[t] & 2) ? upload_texture(tex, 0) : 0;
        if (tex->rgba && !fits) renderer->textures_too_large++;
    }
    free(use);
    renderer->max_texture_side = max_side;
    return SKV_OK;
}

void material_textures_destroy(skv_renderer *renderer)
{
    if (renderer->textures) glDeleteTextures(renderer->texture_count, renderer->textures);
    if (renderer->data_textures) glDeleteTextures(renderer->texture_count, renderer->data_textures);
    free(renderer->textures);
    free(renderer->data_textures);
    renderer->textures = renderer->data_textures = NULL;
    renderer->texture_count = 0;
}
