/* render.c - the renderer: render_create as a sequence of resources, each
 * with its destroy (the model's own data on the GPU: upload.c), the crowd
 * and dual-quaternion programs added on request, and drawing a frame. */
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin.h"
#include "skv_limits.h"
#include "upload.h"

/* std140 layout of the dual-quaternion Bones block (skinned.vert). */
#define DQ_REAL_OFFSET 0
#define DQ_DUAL_OFFSET (SKV_MAX_BONES * 16)
#define DQ_STRETCH_OFFSET (SKV_MAX_BONES * 32)
#define DQ_BLOCK_SIZE (SKV_MAX_BONES * 96)

/* Texture units: 0 the material's base colour, 1 the crowd's palettes,
 * 2-3 morph targets, 4-7 the material's other maps, 8-9 the influence
 * lists (--influences all; read by the vertex shader), 10-11 the crowd's
 * slots (bone IDs, weights). */
#define MORPH_DELTA_UNIT 2
#define MORPH_WEIGHT_UNIT 3
#define MAP_UNIT_FIRST 4 /* + slot - 1 for SKV_TEX_METAL_ROUGH .. SKV_TEX_EMISSIVE */
#define INFLUENCE_START_UNIT 8
#define INFLUENCE_PAIR_UNIT 9
#define SLOT_ID_UNIT 10
#define SLOT_WEIGHT_UNIT 11

/* --- creating and destroying: one pair of calls per resource ------------ */

/* A program for the renderer: from its set (linked once per context), or
 * its own. */
static GLuint program_get(const skv_renderer *renderer, const char *vertex_name, const char *fragment_name,
                          const skv_shader_variant *variant, skv_error *err)
{
    if (renderer->programs) return program_set_get(renderer->programs, vertex_name, fragment_name, variant, err);
    return render_program_variant(vertex_name, fragment_name, NULL, 0, variant, err);
}

/* Lets go of one of the renderer's programs: its own are deleted, the
 * set's stay for the next renderer. */
static void program_release(const skv_renderer *renderer, GLuint *program)
{
    if (*program && !program_set_holds(renderer->programs, *program)) glDeleteProgram(*program);
    *program = 0;
}

/* Per-upload scratch: split mode's gathered palette of one draw, and the
 * dual-quaternion conversion (upload_palette). */
static skv_result palette_scratch_create(skv_renderer *renderer, skv_error *err)
{
    renderer->draw_palette = malloc(SKV_MAX_BONES * sizeof(mat4));
    renderer->dq_bones = malloc(SKV_MAX_BONES * sizeof *renderer->dq_bones);
    renderer->dq_upload = calloc(DQ_BLOCK_SIZE / 4, sizeof(float));
    if (!renderer->draw_palette || !renderer->dq_bones || !renderer->dq_upload)
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    return SKV_OK;
}

static void palette_scratch_destroy(skv_renderer *renderer)
{
    free(renderer->draw_palette);
    free(renderer->dq_bones);
    free(renderer->dq_upload);
    renderer->draw_palette = NULL;
    renderer->dq_bones = NULL;
    renderer->dq_upload = NULL;
}

/* The program that draws the model: `program` (the caller's, adopted) or
 * skinned.vert/.frag built for the model's slots, morphs and lists. */
static skv_result skinning_program_create(skv_renderer *renderer, const skv_model *model, GLuint program,
                                          skv_error *err)
{
    skv_shader_variant variant = {.influence_slots = model->influence_slots, .morph = model->morph_target_count > 0,
                                  .influence_lists = model->influence_lists};
    renderer->program = program ? program : program_get(renderer, "skinned.vert", "skinned.frag", &variant, err);
    if (!renderer->program) return SKV_ERR_GPU;
    program_find_uniforms(renderer->program, &renderer->uniforms);
    if (program_bind_bones(renderer->program) != 0) return skv_fail(err, SKV_ERR_GPU, "shader has no Bones block");
    return SKV_OK;
}

static void skinning_program_destroy(skv_renderer *renderer)
{
    program_release(renderer, &renderer->program);
}

/* The uniform buffer behind the Bones block, big enough for either
 * layout (matrices, or dual quaternions and stretches). */
static void bone_block_create(skv_renderer *renderer)
{
    glGenBuffers(1, &renderer->bone_block);
    glBindBuffer(GL_UNIFORM_BUFFER, renderer->bone_block);
    GLsizeiptr block_size = DQ_BLOCK_SIZE > SKV_MAX_BONES * (GLsizeiptr)sizeof(mat4)
                                ? DQ_BLOCK_SIZE
                                : SKV_MAX_BONES * (GLsizeiptr)sizeof(mat4);
    glBufferData(GL_UNIFORM_BUFFER, block_size, NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
}

static void bone_block_destroy(skv_renderer *renderer)
{
    if (renderer->bone_block) glDeleteBuffers(1, &renderer->bone_block);
    renderer->bone_block = 0;
}

static void overlay_lines_destroy(skv_renderer *renderer)
{
    program_release(renderer, &renderer->line_program);
    if (renderer->line_vao) glDeleteVertexArrays(1, &renderer->line_vao);
    if (renderer->line_buffers[0]) glDeleteBuffers(2, renderer->line_buffers);
    lines_free(&renderer->axes);
    renderer->line_vao = 0;
    memset(renderer->line_buffers, 0, sizeof renderer->line_buffers);
}

/* Overlay lines and points (overlay.h): their program, a vertex array of
 * positions and colours refilled per draw, and the gizmo's segments;
 * made on demand (render_enable_lines). */
static skv_result overlay_lines_create(skv_renderer *renderer, skv_error *err)
{
    const skv_shader_variant variant = {.influence_slots = SKV_DEFAULT_INFLUENCES}; /* as render_program's */
    renderer->line_program = program_get(renderer, "lines.vert", "lines.frag", &variant, err);
    if (!renderer->line_program) return SKV_ERR_GPU;
    renderer->line_u_view_projection = glGetUniformLocation(renderer->line_program, "u_view_projection");
    renderer->line_u_point_size = glGetUniformLocation(renderer->line_program, "u_point_size");
    glGenVertexArrays(1, &renderer->line_vao);
    glBindVertexArray(renderer->line_vao);
    glGenBuffers(2, renderer->line_buffers);
    for (int k = 0; k < 2; k++) {
        glBindBuffer(GL_ARRAY_BUFFER, renderer->line_buffers[k]);
        glEnableVertexAttribArray((GLuint)k);
        glVertexAttribPointer((GLuint)k, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), NULL);
    }
    glBindVertexArray(0);
    glEnable(GL_PROGRAM_POINT_SIZE);
    if (overlay_axes(&renderer->axes) != SKV_OK) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    return SKV_OK;
}

skv_result render_enable_lines(skv_renderer *renderer, skv_error *err)
{
    if (renderer->line_program) return SKV_OK;
    skv_result r = overlay_lines_create(renderer, err);
    if (r != SKV_OK) overlay_lines_destroy(renderer);
    return r;
}

/* For the models with a blended material: each draw's bind-pose centre
 * and the bone with the most weight over its vertices (render.h). The
 * centre moved by that bone places the draw in a frame well enough to
 * order separate parts (hair cards, visors, eyelashes) by depth. */
static skv_result blend_order_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    int any_blend = 0;
    for (int i = 0; i < model->material_count; i++) any_blend |= model->materials[i].alpha_mode == SKV_ALPHA_BLEND;
    if (!any_blend) return SKV_OK;
    const skv_draw_set *set = &renderer->draws;
    int n = set->draw_count > 0 ? set->draw_count : 1;
    int bones = model->skeleton.bone_count > 0 ? model->skeleton.bone_count : 1;
    renderer->draw_centres = calloc((size_t)n * 3, sizeof(float));
    renderer->draw_bones = calloc((size_t)n, sizeof(int));
    renderer->blend_order = calloc((size_t)n, sizeof(int));
    renderer->blend_depth = calloc((size_t)n, sizeof(float));
    float *bone_weight = calloc((size_t)bones, sizeof(float));
    if (!renderer->draw_centres || !renderer->draw_bones || !renderer->blend_order || !renderer->blend_depth ||
        !bone_weight) {
        free(bone_weight);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    const int slots = model->influence_slots;
    for (int i = 0; i < set->draw_count; i++) {
        const skv_draw *d = &set->draws[i];
        double sum[3] = {0, 0, 0};
        memset(bone_weight, 0, (size_t)bones * sizeof(float));
        for (int k = 0; k < d->vertex_count; k++) {
            int g = d->base_vertex + k;
            int v = set->split ? set->source_vertex[g] : g;
            for (int a = 0; a < 3; a++) sum[a] += model->positions[(size_t)v * 3 + a];
            for (int s = 0; s < slots; s++) {
                int b = model->bone_ids[(size_t)v * slots + s];
                if (b < bones) bone_weight[b] += model->weights[(size_t)v * slots + s];
            }
        }
        int best = -1;
        for (int b = 0; b < model->skeleton.bone_count; b++)
            if (bone_weight[b] > 0.0f && (best < 0 || bone_weight[b] > bone_weight[best])) best = b;
        renderer->draw_bones[i] = best;
        for (int a = 0; a < 3; a++)
            renderer->draw_centres[i * 3 + a] = d->vertex_count > 0 ? (float)(sum[a] / d->vertex_count) : 0.0f;
    }
    free(bone_weight);
    return SKV_OK;
}

static void blend_order_destroy(skv_renderer *renderer)
{
    free(renderer->draw_centres);
    free(renderer->draw_bones);
    free(renderer->blend_order);
    free(renderer->blend_depth);
    renderer->draw_centres = renderer->blend_depth = NULL;
    renderer->draw_bones = renderer->blend_order = NULL;
}

static void dq_program_destroy(skv_renderer *renderer)
{
    program_release(renderer, &renderer->dq_program);
}

skv_result render_enable_dual_quaternion(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    if (renderer->program_skinning == SKV_SKINNING_DUAL_QUATERNION || renderer->dq_program) return SKV_OK;
    skv_shader_variant variant = {.influence_slots = model->influence_slots, .dual_quaternion = 1,
                                  .morph = model->morph_target_count > 0, .influence_lists = model->influence_lists};
    GLuint p = program_get(renderer, "skinned.vert", "skinned.frag", &variant, err);
    if (!p) return SKV_ERR_GPU;
    if (program_bind_bones(p) != 0) {
        program_release(renderer, &p);
        return skv_fail(err, SKV_ERR_GPU, "dual-quaternion shader has no Bones block");
    }
    program_find_uniforms(p, &renderer->dq_uniforms);
    renderer->dq_program = p;
    return SKV_OK;
}

/* A crowd of `max_instances` fits the driver's buffer textures: every
 * character's palette (3 texels a bone) and, without lists, the slots
 * (4 a texel; a crowd with lists reads the lists instead, checked at
 * render_create). */
static skv_result crowd_fits(const skv_renderer *renderer, const skv_model *model, int max_instances, skv_error *err)
{
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    long long texels = (long long)max_instances * (model->skeleton.bone_count > 0 ? model->skeleton.bone_count : 1) * 3;
    if (texels > max_texels)
        return skv_fail(err, SKV_ERR_GPU, "a crowd of %d: %lld palette texels, the GPU takes %d", max_instances,
                        texels, (int)max_texels);
    int gpu_vertices = upload_vertex_count(renderer, model);
    long long slot_texels = model->influence_lists ? 0 : (long long)gpu_vertices * (model->influence_slots / 4);
    if (slot_texels > max_texels)
        return skv_fail(err, SKV_ERR_GPU, "a crowd of this model: %lld texels of bone slots, the GPU takes %d",
                        slot_texels, (int)max_texels);
    return SKV_OK;
}

/* The crowd's views of the bone ID and weight buffers (render.h). */
static void slot_textures_create(skv_renderer *renderer)
{
    if (renderer->slot_textures[0]) return;
    glGenTextures(2, renderer->slot_textures);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->slot_textures[0]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA16UI, renderer->buffers[3]);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->slot_textures[1]);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, renderer->buffers[4]);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
}

static void slot_textures_destroy(skv_renderer *renderer)
{
    if (renderer->slot_textures[0]) glDeleteTextures(2, renderer->slot_textures);
    memset(renderer->slot_textures, 0, sizeof renderer->slot_textures);
}

/* The instanced program (`program`, the caller's, replaces one there
 * was) and the texture buffer the characters' palettes go into. */
static skv_result crowd_program_create(skv_renderer *renderer, const skv_model *model, GLuint program, skv_error *err)
{
    if (program && renderer->crowd_program && program != renderer->crowd_program)
        program_release(renderer, &renderer->crowd_program);
    if (renderer->crowd_program) return SKV_OK;
    /* --influences all: the crowd reads the same per-vertex lists as
     * the single draw (one set for every character: the lists belong
     * to the mesh, the palettes to the character). */
    skv_shader_variant variant = {.influence_slots = model->influence_slots, .instanced = 1,
                                  .influence_lists = model->influence_lists, .split = renderer->draws.split};
    renderer->crowd_program = program ? program : program_get(renderer, "skinned.vert", "skinned.frag", &variant, err);
    if (!renderer->crowd_program) return SKV_ERR_GPU;
    program_find_uniforms(renderer->crowd_program, &renderer->crowd_uniforms);
    if (!renderer->crowd_buffer) glGenBuffers(1, &renderer->crowd_buffer);
    if (!renderer->crowd_texture) glGenTextures(1, &renderer->crowd_texture);
    return SKV_OK;
}

static void crowd_program_destroy(skv_renderer *renderer)
{
    program_release(renderer, &renderer->crowd_program);
    if (renderer->crowd_buffer) glDeleteBuffers(1, &renderer->crowd_buffer);
    if (renderer->crowd_texture) glDeleteTextures(1, &renderer->crowd_texture);
    renderer->crowd_buffer = renderer->crowd_texture = 0;
}

skv_result render_enable_crowd(skv_renderer *renderer, const skv_model *model, int max_instances, skv_error *err)
{
    return render_enable_crowd_with(renderer, model, max_instances, 0, err);
}

skv_result render_enable_crowd_with(skv_renderer *renderer, const skv_model *model, int max_instances, GLuint program,
                                    skv_error *err)
{
    skv_result r = crowd_fits(renderer, model, max_instances, err);
    if (r != SKV_OK) {
        if (program) glDeleteProgram(program); /* the caller's program is the renderer's, also on failure */
        return r;
    }
    slot_textures_create(renderer);
    return crowd_program_create(renderer, model, program, err);
}

static skv_result create(skv_renderer *renderer, const skv_model *model, skv_program_set *programs, GLuint program,
                         skv_skinning skinning, skv_error *err);

skv_result render_create(skv_renderer *renderer, const skv_model *model, skv_error *err)
{
    return create(renderer, model, NULL, 0, SKV_SKINNING_LINEAR, err);
}

skv_result render_create_from(skv_renderer *renderer, const skv_model *model, skv_program_set *programs,
                              skv_error *err)
{
    return create(renderer, model, programs, 0, SKV_SKINNING_LINEAR, err);
}

skv_result render_create_with(skv_renderer *renderer, const skv_model *model, GLuint program, skv_skinning skinning,
                              skv_error *err)
{
    return create(renderer, model, NULL, program, skinning, err);
}

static skv_result create(skv_renderer *renderer, const skv_model *model, skv_program_set *programs, GLuint program,
                         skv_skinning skinning, skv_error *err)
{
    memset(renderer, 0, sizeof *renderer);
    renderer->programs = programs;
    renderer->program_skinning = skinning;
    while (glGetError() != GL_NO_ERROR) {
        /* Report only errors of the upload below, not earlier ones. */
    }
    skv_result r = draws_build(model, SKV_MAX_BONES, &renderer->draws, err);
    if (r == SKV_OK) r = palette_scratch_create(renderer, err);
    if (r != SKV_OK) {
        if (program) glDeleteProgram(program); /* the caller's program is the renderer's, also on failure */
        return r;
    }
    r = skinning_program_create(renderer, model, program, err);
    if (r == SKV_OK) r = vertex_buffers_create(renderer, model, err);
    if (r == SKV_OK && model->morph_target_count > 0) r = morph_buffers_create(renderer, model, err);
    if (r == SKV_OK && model->influence_lists) r = influence_lists_create(renderer, model, err);
    if (r == SKV_OK) bone_block_create(renderer);
    if (r == SKV_OK) r = blend_order_create(renderer, model, err);
    if (r == SKV_OK) r = material_textures_create(renderer, model, err);
    if (r != SKV_OK) return r;
    GLenum gl_error = glGetError();
    if (gl_error != GL_NO_ERROR) return skv_fail(err, SKV_ERR_GPU, "GL error 0x%x while uploading the model", gl_error);
    return SKV_OK;
}

/* Everything render_create made and the render_enable_* calls added, in
 * the reverse order; after a failed render_create too. */
void render_destroy(skv_renderer *renderer)
{
    dq_program_destroy(renderer);
    crowd_program_destroy(renderer);
    slot_textures_destroy(renderer);
    material_textures_destroy(renderer);
    blend_order_destroy(renderer);
    overlay_lines_destroy(renderer);
    bone_block_destroy(renderer);
    influence_lists_destroy(renderer);
    morph_buffers_destroy(renderer);
    vertex_buffers_destroy(renderer);
    skinning_program_destroy(renderer);
    palette_scratch_destroy(renderer);
    draws_free(&renderer->draws);
    memset(renderer, 0, sizeof *renderer);
}

/* --- drawing ------------------------------------------------------------- */

/* Two buffer textures on their units, and the samplers that read them. */
static void bind_buffer_textures(const GLuint textures[2], int unit_a, int unit_b, GLint sampler_a, GLint sampler_b)
{
    glActiveTexture(GL_TEXTURE0 + unit_a);
    glBindTexture(GL_TEXTURE_BUFFER, textures[0]);
    glActiveTexture(GL_TEXTURE0 + unit_b);
    glBindTexture(GL_TEXTURE_BUFFER, textures[1]);
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(sampler_a, unit_a);
    glUniform1i(sampler_b, unit_b);
}

static void bind_influence_lists(const skv_renderer *renderer, const skv_uniforms *u)
{
    if (!renderer->influence_textures[0] || u->influence_starts < 0) return;
    bind_buffer_textures(renderer->influence_textures, INFLUENCE_START_UNIT, INFLUENCE_PAIR_UNIT, u->influence_starts,
                         u->influence_pairs);
}

static void bind_morphs(const skv_renderer *renderer, const skv_model *model, const skv_uniforms *u,
                        const float *weights)
{
    if (!renderer->morph) return;
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->morph_buffers[1]);
    glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)model->morph_target_count * (GLsizeiptr)sizeof(float),
                    weights ? weights : model->morph_default_weights);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    bind_buffer_textures(renderer->morph_textures, MORPH_DELTA_UNIT, MORPH_WEIGHT_UNIT, u->morph_deltas,
                         u->morph_weights);
}

/* Which targets and deltas a draw of `mesh` reads. */
static void set_morph_mesh(const skv_renderer *renderer, const skv_uniforms *u, const skv_model *model, int mesh)
{
    if (!renderer->morph) return;
    const skv_mesh *m = &model->meshes[mesh];
    glUniform1i(u->morph_first_target, m->first_morph_target);
    glUniform1i(u->morph_count, m->morph_target_count);
    glUniform1i(u->morph_base, m->morph_delta_base);
    glUniform1i(u->morph_vertices, m->vertex_count);
    glUniform1i(u->morph_first_vertex, m->base_vertex);
}

static void upload_palette(skv_renderer *renderer, const mat4 *palette, int bone_count, skv_skinning skinning)
{
    glBindBuffer(GL_UNIFORM_BUFFER, renderer->bone_block);
    if (skinning == SKV_SKINNING_DUAL_QUATERNION) {
        skin_dq_palette(palette, bone_count, renderer->dq_bones);
        for (int b = 0; b < bone_count; b++) {
            memcpy(renderer->dq_upload + (DQ_REAL_OFFSET + b * 16) / 4, renderer->dq_bones[b].real, 16);
            memcpy(renderer->dq_upload + (DQ_DUAL_OFFSET + b * 16) / 4, renderer->dq_bones[b].dual, 16);
            memcpy(renderer->dq_upload + (DQ_STRETCH_OFFSET + b * 64) / 4, renderer->dq_bones[b].stretch, 64);
        }
        glBufferSubData(GL_UNIFORM_BUFFER, 0, DQ_BLOCK_SIZE, renderer->dq_upload);
    } else {
        glBufferSubData(GL_UNIFORM_BUFFER, 0, (GLsizeiptr)bone_count * (GLsizeiptr)sizeof(mat4), palette);
    }
    glBindBufferBase(GL_UNIFORM_BUFFER, SKV_BONES_BINDING, renderer->bone_block);
}

/* The blended draws of this frame, far to near, into blend_order;
 * returns how many. */
static int blend_order_sort(skv_renderer *renderer, const skv_model *model, const mat4 *palette)
{
    if (!renderer->blend_order) return 0;
    const skv_draw_set *set = &renderer->draws;
    int count = 0;
    for (int i = 0; i < set->draw_count; i++) {
        const skv_material *mat = &model->materials[model->meshes[set->draws[i].mesh].material];
        if (mat->alpha_mode != SKV_ALPHA_BLEND) continue;
        vec4 centre = {renderer->draw_centres[i * 3], renderer->draw_centres[i * 3 + 1],
                       renderer->draw_centres[i * 3 + 2], 1.0f};
        vec4 moved, viewed;
        if (palette && renderer->draw_bones[i] >= 0) glm_mat4_mulv((vec4 *)palette[renderer->draw_bones[i]], centre, moved);
        else glm_vec4_copy(centre, moved);
        glm_mat4_mulv(renderer->model_view, moved, viewed);
        /* Insertion by view-space z: the camera looks down -z, so the
         * most negative is the farthest and goes first. Ties keep the
         * file's order. */
        int at = count;
        while (at > 0 && renderer->blend_depth[at - 1] > viewed[2]) {
            renderer->blend_depth[at] = renderer->blend_depth[at - 1];
            renderer->blend_order[at] = renderer->blend_order[at - 1];
            at--;
        }
        renderer->blend_depth[at] = viewed[2];
        renderer->blend_order[at] = i;
        count++;
    }
    return count;
}

static void draw_crowd(skv_renderer *renderer, const skv_model *model, const skv_frame_desc *frame);
static void draw_model(skv_renderer *renderer, const skv_model *model, const skv_uniforms *u, skv_skinning skinning,
                       const mat4 *palette, const float *morph_weights, skv_shade shade, int selected_bone,
                       const float *color);
static void draw_lines(skv_renderer *renderer, const skv_lines *lines, const mat4 view_projection, GLenum mode,
                       float point_size);
static void draw_axes(skv_renderer *renderer, const skv_frame_desc *frame);

/* The per-frame uniforms both programs share. */
static void set_frame_uniforms(const skv_uniforms *u, const skv_frame_desc *frame, const mat4 model_matrix)
{
    glUniformMatrix4fv(u->model, 1, GL_FALSE, (const float *)model_matrix);
    glUniformMatrix4fv(u->view, 1, GL_FALSE, (const float *)frame->view);
    glUniformMatrix4fv(u->projection, 1, GL_FALSE, (const float *)frame->projection);
    /* Normals' view transform: the same for every vertex, so once here. */
    mat4 model_view;
    mat3 view_normal;
    glm_mat4_mul((vec4 *)frame->view, (vec4 *)model_matrix, model_view);
    glm_mat4_pick3(model_view, view_normal);
    glm_mat3_inv(view_normal, view_normal);
    glm_mat3_transpose(view_normal);
    glUniformMatrix3fv(u->view_normal, 1, GL_FALSE, (const float *)view_normal);
    glUniform1i(u->texture, 0);
    glUniform1i(u->metal_rough_map, MAP_UNIT_FIRST);
    glUniform1i(u->normal_map, MAP_UNIT_FIRST + 1);
    glUniform1i(u->occlusion_map, MAP_UNIT_FIRST + 2);
    glUniform1i(u->emissive_map, MAP_UNIT_FIRST + 3);
    /* The hemisphere light's axis: the upright scene's +y, seen from the camera. */
    vec3 up = {0.0f, 1.0f, 0.0f}, view_up;
    glm_mat4_mulv3((vec4 *)frame->view, up, 0.0f, view_up);
    glm_vec3_normalize(view_up);
    glUniform3fv(u->view_up, 1, view_up);
}

/* The GL texture of a material's slot, or 0 (none, or not uploaded). */
static GLuint slot_texture(const skv_renderer *renderer, const skv_material *mat, int slot)
{
    int t = mat->textures[slot];
    if (t < 0 || t >= renderer->texture_count) return 0;
    return slot == SKV_TEX_BASE_COLOR || slot == SKV_TEX_EMISSIVE ? renderer->textures[t] : renderer->data_textures[t];
}

static void set_material(const skv_renderer *renderer, const skv_uniforms *u, const skv_model *model, int mesh_index)
{
    const skv_mesh *mesh = &model->meshes[mesh_index];
    const skv_material *mat = &model->materials[mesh->material];
    glUniform4fv(u->diffuse, 1, mat->diffuse);
    GLuint base = slot_texture(renderer, mat, SKV_TEX_BASE_COLOR);
    glUniform1i(u->has_texture, base != 0);
    if (base) glBindTexture(GL_TEXTURE_2D, base);
    glUniform1f(u->metallic, mat->metallic);
    glUniform1f(u->roughness, mat->roughness);
    glUniform3fv(u->emissive, 1, mat->emissive);
    glUniform1f(u->normal_scale, mat->normal_scale);
    glUniform1f(u->occlusion_strength, mat->occlusion_strength);
    glUniform1i(u->alpha_mode, (int)mat->alpha_mode);
    glUniform1f(u->alpha_cutoff, mat->alpha_cutoff);
    int maps = 0;
    for (int slot = SKV_TEX_METAL_ROUGH; slot <= SKV_TEX_EMISSIVE; slot++) {
        GLuint id = slot_texture(renderer, mat, slot);
        /* Normal maps need tangents, which only normal-mapped meshes get. */
        if (!id || (slot == SKV_TEX_NORMAL && !model->tangents)) continue;
        maps |= 1 << (slot - 1);
        glActiveTexture(GL_TEXTURE0 + MAP_UNIT_FIRST + slot - 1);
        glBindTexture(GL_TEXTURE_2D, id);
    }
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(u->maps, maps);
    /* Each slot's UV map (model.h: uv_transform), two rows a slot. */
    static const float identity[SKV_TEX_SLOTS][6] = {
        {1, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 1, 0}};
    glUniform3fv(u->uv_maps, 2 * SKV_TEX_SLOTS, &(mat->uv_transformed ? mat->uv_transform : identity)[0][0]);
    /* Single-sided (glTF without doubleSided): back faces are not drawn. */
    if (mat->double_sided) glDisable(GL_CULL_FACE);
    else glEnable(GL_CULL_FACE);
}

/* Blended draws: colour over what is there by the fragment's alpha. On an
 * opaque background alpha stays 1 (PNGs stay opaque); over a transparent
 * one it gathers coverage (a + dst (1 - a)), so the target is
 * premultiplied colour with its alpha. */
static void blend_func(const skv_renderer *renderer)
{
    if (renderer->transparent_background)
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    else glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
}

void render_frame(skv_renderer *renderer, const skv_model *model, const skv_frame_desc *frame)
{
    if (renderer->transparent_background) glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
    else glClearColor(frame->background[0], frame->background[1], frame->background[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE); /* files disagree on winding; light both sides */
    if (frame->instance_count > 0 && renderer->crowd_program) {
        draw_crowd(renderer, model, frame);
        return;
    }

    /* The program for the skinning asked for, if the renderer has it. */
    GLuint program = renderer->program;
    const skv_uniforms *u = &renderer->uniforms;
    skv_skinning skinning = renderer->program_skinning;
    if (frame->skinning != skinning && frame->skinning == SKV_SKINNING_DUAL_QUATERNION && renderer->dq_program) {
        program = renderer->dq_program;
        u = &renderer->dq_uniforms;
        skinning = SKV_SKINNING_DUAL_QUATERNION;
    }
    glUseProgram(program);
    set_frame_uniforms(u, frame, frame->model);
    glm_mat4_mul((vec4 *)frame->view, (vec4 *)frame->model, renderer->model_view);
    draw_model(renderer, model, u, skinning, frame->palette, frame->morph_weights, frame->shade, frame->selected_bone,
               NULL);
    if (frame->wireframe) {
        /* The triangles' edges over the shading, pulled slightly forward. */
        const float edge[4] = {0.05f, 0.06f, 0.08f, 1.0f};
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glEnable(GL_POLYGON_OFFSET_LINE);
        glPolygonOffset(-1.0f, -1.0f);
        draw_model(renderer, model, u, skinning, frame->palette, frame->morph_weights, SKV_SHADE_FLAT, -1, edge);
        glDisable(GL_POLYGON_OFFSET_LINE);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    }
    if (frame->ghost_palette) {
        const float ghost[4] = {0.55f, 0.62f, 0.75f, 1.0f};
        set_frame_uniforms(u, frame, frame->ghost_model);
        glm_mat4_mul((vec4 *)frame->view, (vec4 *)frame->ghost_model, renderer->model_view);
        draw_model(renderer, model, u, skinning, frame->ghost_palette, NULL, SKV_SHADE_SOLID, -1, ghost);
    }
    mat4 view_projection;
    glm_mat4_mul((vec4 *)frame->projection, (vec4 *)frame->view, view_projection);
    if (frame->depth_lines) draw_lines(renderer, frame->depth_lines, view_projection, GL_LINES, 1.0f);
    glDisable(GL_DEPTH_TEST); /* the skeleton shows through the mesh */
    if (frame->overlay_lines) draw_lines(renderer, frame->overlay_lines, view_projection, GL_LINES, 1.0f);
    if (frame->overlay_points) draw_lines(renderer, frame->overlay_points, view_projection, GL_POINTS, 5.0f);
    if (frame->axes) draw_axes(renderer, frame);
    glEnable(GL_DEPTH_TEST);
}

/* One draw of draw_model. */
static void draw_one(skv_renderer *renderer, const skv_model *model, const skv_uniforms *u, skv_skinning skinning,
                     const mat4 *palette, int i, int selected_bone, const float *color, int materials)
{
    const skv_draw_set *set = &renderer->draws;
    const skv_draw *d = &set->draws[i];
    if (set->split) {
        draws_gather_palette(d, palette, renderer->draw_palette);
        upload_palette(renderer, (const mat4 *)renderer->draw_palette, d->bone_count, skinning);
        /* The selected bone by its slot in this draw's palette. */
        int local = -1;
        for (int k = 0; k < d->bone_count && local < 0; k++)
            if (d->bones[k] == selected_bone) local = k;
        glUniform1i(u->selected_bone, local);
    }
    set_material(renderer, u, model, d->mesh);
    set_morph_mesh(renderer, u, model, d->mesh);
    if (color) {
        glUniform4fv(u->diffuse, 1, color);
        glUniform1i(u->has_texture, 0);
    }
    /* The inspection views show every triangle, whatever the material. */
    if (!materials) glDisable(GL_CULL_FACE);
    glDrawElementsBaseVertex(GL_TRIANGLES, d->index_count, GL_UNSIGNED_INT,
                             (const void *)((size_t)d->first_index * sizeof(uint32_t)), d->base_vertex);
}

/* The model once: every draw, its palette, `shade` (render.h), `color`
 * replacing the materials' colour where not NULL. The program is bound.
 * With the materials (SKV_SHADE_MATERIAL, no `color`), opaque and masked
 * draws first, then the blended ones far to near, blending over what is
 * there without writing depth (so they do not hide each other). */
static void draw_model(skv_renderer *renderer, const skv_model *model, const skv_uniforms *u, skv_skinning skinning,
                       const mat4 *palette, const float *morph_weights, skv_shade shade, int selected_bone,
                       const float *color)
{
    const skv_draw_set *set = &renderer->draws;
    if (!set->split) upload_palette(renderer, palette, model->skeleton.bone_count, skinning);
    bind_morphs(renderer, model, u, morph_weights);
    bind_influence_lists(renderer, u);
    glUniform1i(u->shade_mode, (int)shade);
    glUniform1i(u->selected_bone, selected_bone);
    glActiveTexture(GL_TEXTURE0);
    glBindVertexArray(renderer->vao);
    int materials = shade == SKV_SHADE_MATERIAL && !color;
    for (int i = 0; i < set->draw_count; i++) {
        const skv_material *mat = &model->materials[model->meshes[set->draws[i].mesh].material];
        if (materials && mat->alpha_mode == SKV_ALPHA_BLEND) continue;
        draw_one(renderer, model, u, skinning, palette, i, selected_bone, color, materials);
    }
    int blended = materials ? blend_order_sort(renderer, model, palette) : 0;
    if (blended > 0) {
        glEnable(GL_BLEND);
        blend_func(renderer);
        glDepthMask(GL_FALSE);
        for (int k = 0; k < blended; k++)
            draw_one(renderer, model, u, skinning, palette, renderer->blend_order[k], selected_bone, color, 1);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
    }
    glDisable(GL_CULL_FACE);
    glBindVertexArray(0);
}

static void draw_lines(skv_renderer *renderer, const skv_lines *lines, const mat4 view_projection, GLenum mode,
                       float point_size)
{
    if (!renderer->line_program || lines->count == 0) return;
    glUseProgram(renderer->line_program);
    glUniformMatrix4fv(renderer->line_u_view_projection, 1, GL_FALSE, (const float *)view_projection);
    glUniform1f(renderer->line_u_point_size, point_size);
    glBindVertexArray(renderer->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, renderer->line_buffers[0]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)lines->count * 3 * (GLsizeiptr)sizeof(float), lines->positions,
                 GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, renderer->line_buffers[1]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)lines->count * 3 * (GLsizeiptr)sizeof(float), lines->colors,
                 GL_STREAM_DRAW);
    glDrawArrays(mode, 0, lines->count);
    glBindVertexArray(0);
}

/* X/Y/Z in the lower left corner, turned with the camera. */
static void draw_axes(skv_renderer *renderer, const skv_frame_desc *frame)
{
    GLint viewport[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    int size = viewport[3] / 6 > 48 ? viewport[3] / 6 : 48;
    glViewport(viewport[0] + 4, viewport[1] + 4, size, size);
    mat4 rotation, projection, view_projection;
    glm_mat4_copy((vec4 *)frame->view, rotation);
    rotation[3][0] = rotation[3][1] = 0.0f;
    rotation[3][2] = -3.0f; /* the unit axes, 3 units in front of the eye */
    glm_perspective(glm_rad(40.0f), 1.0f, 0.1f, 10.0f, projection);
    glm_mat4_mul(projection, rotation, view_projection);
    draw_lines(renderer, &renderer->axes, view_projection, GL_LINES, 1.0f);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
}

/* Every character's palette into the crowd's texture buffer (one upload
 * per frame), and the crowd program's per-frame state that is not the
 * view's: palettes, lists, the grid. */
static void bind_crowd(skv_renderer *renderer, const skv_model *model, const float *palettes, int count,
                       int grid_columns, float grid_spacing)
{
    const skv_uniforms *u = &renderer->crowd_uniforms;
    int bones = model->skeleton.bone_count > 0 ? model->skeleton.bone_count : 1;
    /* 3x4 rows: 48 bytes per bone (crowd.h). */
    GLsizeiptr bytes = (GLsizeiptr)count * bones * (GLsizeiptr)(3 * 4 * sizeof(float));
    glBindBuffer(GL_TEXTURE_BUFFER, renderer->crowd_buffer);
    glBufferData(GL_TEXTURE_BUFFER, bytes, palettes, GL_STREAM_DRAW);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_BUFFER, renderer->crowd_texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, renderer->crowd_buffer);
    glActiveTexture(GL_TEXTURE0);

    glUseProgram(renderer->crowd_program);
    glUniform1i(u->shade_mode, 0);
    glUniform1i(u->palettes, 1);
    glUniform1i(u->bones_per_instance, bones);
    glUniform1i(u->grid_columns, grid_columns > 0 ? grid_columns : 1);
    glUniform1f(u->grid_spacing, grid_spacing);
    bind_influence_lists(renderer, u);
    if (u->slot_ids >= 0)
        bind_buffer_textures(renderer->slot_textures, SLOT_ID_UNIT, SLOT_WEIGHT_UNIT, u->slot_ids, u->slot_weights);
}

/* All characters: their palettes into the texture buffer (one upload),
 * then one instanced draw per mesh (per split draw past SKV_MAX_BONES). */
static void draw_crowd(skv_renderer *renderer, const skv_model *model, const skv_frame_desc *frame)
{
    const skv_uniforms *u = &renderer->crowd_uniforms;
    bind_crowd(renderer, model, frame->instance_palettes, frame->instance_count, frame->grid_columns,
               frame->grid_spacing);
    set_frame_uniforms(u, frame, frame->model);
    glBindVertexArray(renderer->vao);
    const skv_draw_set *set = &renderer->draws;
    /* Opaque and masked draws, then the blended ones (in the file's
     * order: the characters' parts interleave, no order fits them all). */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            glEnable(GL_BLEND);
            blend_func(renderer);
            glDepthMask(GL_FALSE);
        }
        for (int i = 0; i < set->draw_count; i++) {
            const skv_draw *d = &set->draws[i];
            int blend = model->materials[model->meshes[d->mesh].material].alpha_mode == SKV_ALPHA_BLEND;
            if (blend != pass) continue;
            set_material(renderer, u, model, d->mesh);
            if (set->split) glUniform1iv(u->crowd_bones, d->bone_count, d->bones);
            glDrawElementsInstancedBaseVertex(GL_TRIANGLES, d->index_count, GL_UNSIGNED_INT,
                                              (const void *)((size_t)d->first_index * sizeof(uint32_t)),
                                              frame->instance_count, d->base_vertex);
        }
    }
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glBindVertexArray(0);
}

void render_feedback_crowd(skv_renderer *renderer, const skv_model *model, const float *palettes, int count,
                           GLuint feedback)
{
    if (!renderer->crowd_program) return; /* render_enable_crowd first */
    bind_crowd(renderer, model, palettes, count, 1, 0.0f);
    glBindVertexArray(renderer->vao);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    /* Per draw, instance after instance: points land draw by draw, and
     * within a draw character by character. */
    const skv_draw_set *set = &renderer->draws;
    for (int i = 0; i < set->draw_count; i++) {
        const skv_draw *d = &set->draws[i];
        if (set->split) glUniform1iv(renderer->crowd_uniforms.crowd_bones, d->bone_count, d->bones);
        glDrawArraysInstanced(GL_POINTS, d->base_vertex, d->vertex_count, count);
    }
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(0);
}

void render_feedback(skv_renderer *renderer, const skv_model *model, const mat4 *palette, GLuint feedback)
{
    render_feedback_morph(renderer, model, palette, NULL, feedback);
}

void render_feedback_morph(skv_renderer *renderer, const skv_model *model, const mat4 *palette,
                          const float *morph_weights, GLuint feedback)
{
    const skv_draw_set *set = &renderer->draws;
    if (!set->split) upload_palette(renderer, palette, model->skeleton.bone_count, renderer->program_skinning);
    glUseProgram(renderer->program);
    bind_morphs(renderer, model, &renderer->uniforms, morph_weights);
    bind_influence_lists(renderer, &renderer->uniforms);
    glBindVertexArray(renderer->vao);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    /* Draws cover the GPU vertices in order, so points land in order. */
    for (int i = 0; i < set->draw_count; i++) {
        const skv_draw *d = &set->draws[i];
        if (set->split) {
            draws_gather_palette(d, palette, renderer->draw_palette);
            upload_palette(renderer, (const mat4 *)renderer->draw_palette, d->bone_count, renderer->program_skinning);
        }
        set_morph_mesh(renderer, &renderer->uniforms, model, d->mesh);
        glDrawArrays(GL_POINTS, d->base_vertex, d->vertex_count);
    }
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(0);
}

static void GLAD_API_PTR on_debug_message(GLenum source, GLenum type, GLuint id, GLenum severity,
                                          GLsizei length, const GLchar *message, const void *user)
{
    (void)source, (void)id, (void)severity, (void)length;
    skv_gl_debug *debug = (skv_gl_debug *)user;
    if (type != GL_DEBUG_TYPE_ERROR) return;
    if (debug->errors++ == 0) snprintf(debug->first, sizeof debug->first, "%s", message);
}

skv_result render_debug_begin(skv_gl_debug *debug, skv_error *err)
{
    memset(debug, 0, sizeof *debug);
    if (!GLAD_GL_KHR_debug) return skv_fail(err, SKV_ERR_GPU, "the driver has no KHR_debug (OpenGL debug output)");
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(on_debug_message, debug);
    return SKV_OK;
}

skv_result render_debug_result(const skv_gl_debug *debug, skv_error *err)
{
    if (!debug->errors) return SKV_OK;
    return skv_fail(err, SKV_ERR_GPU, "GL reported %d error(s); the first: %s", debug->errors, debug->first);
}

void render_debug_end(skv_gl_debug *debug)
{
    (void)debug;
    if (!GLAD_GL_KHR_debug) return;
    glDebugMessageCallback(NULL, NULL);
    glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
}
