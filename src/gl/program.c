/* program.c - compiling and linking the embedded shaders, per variant;
 * finding a program's uniforms. */
#include "program.h"

#include "program_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader_source.h"
#include "skv_limits.h"

/* Prepended to every shader: the single definition of the shared limits. */
static void shader_preamble(char *out, size_t size, const skv_shader_variant *variant)
{
    snprintf(out, size,
             "#version 330 core\n"
             "#define SKV_INSTANCED %d\n"
             "#define SKV_DUAL_QUATERNION %d\n"
             "#define SKV_MAX_BONES %d\n"
             "#define SKV_INFLUENCE_SLOTS %d\n"
             "#define SKV_ATTR_POSITION %d\n"
             "#define SKV_ATTR_NORMAL %d\n"
             "#define SKV_ATTR_UV %d\n"
             "#define SKV_ATTR_BONE_IDS %d\n"
             "#define SKV_ATTR_WEIGHTS %d\n"
             "#define SKV_ATTR_BONE_IDS_1 %d\n"
             "#define SKV_ATTR_WEIGHTS_1 %d\n"
             "#define SKV_MORPH %d\n"
             "#define SKV_ATTR_VERTEX %d\n"
             "#define SKV_ATTR_TANGENT %d\n"
             "#define SKV_SHADE_MATERIAL %d\n"
             "#define SKV_SHADE_WEIGHTS %d\n"
             "#define SKV_SHADE_INFLUENCES %d\n"
             "#define SKV_SHADE_SOLID %d\n"
             "#define SKV_SHADE_FLAT %d\n"
             "#define SKV_INFLUENCE_LISTS %d\n"
             "#define SKV_CROWD_SPLIT %d\n"
             "#line 1\n",
             variant->instanced, variant->dual_quaternion, SKV_MAX_BONES, variant->influence_slots, SKV_ATTR_POSITION, SKV_ATTR_NORMAL, SKV_ATTR_UV, SKV_ATTR_BONE_IDS,
             SKV_ATTR_WEIGHTS, SKV_ATTR_BONE_IDS_1, SKV_ATTR_WEIGHTS_1, variant->morph, SKV_ATTR_VERTEX, SKV_ATTR_TANGENT,
             SKV_SHADE_MATERIAL, SKV_SHADE_WEIGHTS, SKV_SHADE_INFLUENCES, SKV_SHADE_SOLID, SKV_SHADE_FLAT,
             variant->influence_lists, variant->instanced && variant->split);
}

/* A shader's or program's log as one line (errors are one line). */
static const char *info_log_line(GLuint object, int is_program, char *log, GLsizei size)
{
    log[0] = '\0';
    if (is_program) glGetProgramInfoLog(object, size, NULL, log);
    else glGetShaderInfoLog(object, size, NULL, log);
    for (char *c = log; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    return log;
}

static GLuint compile(GLenum stage, const char *name, const skv_shader_variant *variant, skv_error *err)
{
    const char *body = shader_source(name);
    if (!body) {
        skv_fail(err, SKV_ERR_GPU, "shader %s is not embedded", name);
        return 0;
    }
    char preamble[1024];
    shader_preamble(preamble, sizeof preamble, variant);
    const char *parts[2] = {preamble, body};
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 2, parts, NULL);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        skv_fail(err, SKV_ERR_GPU, "shader %s does not compile: %s", name, info_log_line(shader, 0, log, sizeof log));
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint render_program_feedback(const char *vertex_name, const char *fragment_name, const char *const *varyings,
                              int varying_count, int influence_slots, skv_error *err)
{
    skv_shader_variant variant = {.influence_slots = influence_slots};
    return render_program_variant(vertex_name, fragment_name, varyings, varying_count, &variant, err);
}

GLuint render_program(const char *vertex_name, const char *fragment_name, skv_error *err)
{
    return render_program_feedback(vertex_name, fragment_name, NULL, 0, SKV_DEFAULT_INFLUENCES, err);
}

/* A program's key in the cache (program_cache.h): the driver's strings
 * and every text the program is built from, the transform feedback
 * varyings included; NULL (no cache for it) if memory runs out or a
 * shader is not embedded. */
static char *program_key(const char *vertex_name, const char *fragment_name, const char *const *varyings,
                         int varying_count, const skv_shader_variant *variant, size_t *size)
{
    const char *vertex = shader_source(vertex_name), *fragment = shader_source(fragment_name);
    if (!vertex || !fragment) return NULL;
    char preamble[1024];
    shader_preamble(preamble, sizeof preamble, variant);
    const GLenum strings[] = {GL_VENDOR, GL_RENDERER, GL_VERSION, GL_SHADING_LANGUAGE_VERSION};
    const char *parts[16];
    int n = 0;
    for (int i = 0; i < 4; i++) {
        const char *s = (const char *)glGetString(strings[i]);
        parts[n++] = s ? s : "";
    }
    parts[n++] = preamble, parts[n++] = vertex, parts[n++] = preamble, parts[n++] = fragment;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += strlen(parts[i]) + 1;
    for (int i = 0; i < varying_count; i++) total += strlen(varyings[i]) + 1;
    char *key = malloc(total > 0 ? total : 1), *p = key;
    if (!key) return NULL;
    for (int i = 0; i < n + varying_count; i++) { /* each text ended by a 0 byte: no two keys run together */
        const char *t = i < n ? parts[i] : varyings[i - n];
        size_t len = strlen(t) + 1;
        memcpy(p, t, len);
        p += len;
    }
    *size = total;
    return key;
}

GLuint render_program_variant(const char *vertex_name, const char *fragment_name, const char *const *varyings,
                              int varying_count, const skv_shader_variant *variant, skv_error *err)
{
    size_t key_size = 0;
    char *key = program_cache_usable()
                    ? program_key(vertex_name, fragment_name, varyings, varying_count, variant, &key_size)
                    : NULL;
    if (key) {
        GLuint kept = program_cache_load(key, key_size);
        if (kept) {
            free(key);
            return kept;
        }
    }
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_name, variant, err);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fragment_name, variant, err) : 0;
    if (!fs) {
        if (vs) glDeleteShader(vs);
        free(key);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    if (varying_count > 0)
        glTransformFeedbackVaryings(program, varying_count, (const GLchar *const *)varyings, GL_INTERLEAVED_ATTRIBS);
    if (key) glProgramParameteri(program, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400];
        skv_fail(err, SKV_ERR_GPU, "shaders %s + %s do not link: %s", vertex_name, fragment_name,
                 info_log_line(program, 1, log, sizeof log));
        glDeleteProgram(program);
        free(key);
        return 0;
    }
    if (key) program_cache_store(program, key, key_size);
    free(key);
    return program;
}

void program_set_create(skv_program_set *set)
{
    memset(set, 0, sizeof *set);
}

static int same_variant(const skv_shader_variant *a, const skv_shader_variant *b)
{
    return a->influence_slots == b->influence_slots && a->instanced == b->instanced &&
           a->dual_quaternion == b->dual_quaternion && a->morph == b->morph &&
           a->influence_lists == b->influence_lists && a->split == b->split;
}

GLuint program_set_get(skv_program_set *set, const char *vertex_name, const char *fragment_name,
                       const skv_shader_variant *variant, skv_error *err)
{
    for (int i = 0; i < set->count; i++) {
        const skv_program_entry *e = &set->entries[i];
        if (strcmp(e->vertex, vertex_name) == 0 && strcmp(e->fragment, fragment_name) == 0 &&
            same_variant(&e->variant, variant))
            return e->program;
    }
    skv_program_entry entry = {.variant = *variant};
    if (strlen(vertex_name) >= sizeof entry.vertex || strlen(fragment_name) >= sizeof entry.fragment) {
        skv_fail(err, SKV_ERR_GPU, "shader names %s + %s too long for the program set", vertex_name, fragment_name);
        return 0;
    }
    if (set->count == set->capacity) {
        int capacity = set->capacity ? set->capacity * 2 : 8;
        skv_program_entry *grown = realloc(set->entries, (size_t)capacity * sizeof *grown);
        if (!grown) {
            skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            return 0;
        }
        set->entries = grown, set->capacity = capacity;
    }
    snprintf(entry.vertex, sizeof entry.vertex, "%s", vertex_name);
    snprintf(entry.fragment, sizeof entry.fragment, "%s", fragment_name);
    entry.program = render_program_variant(vertex_name, fragment_name, NULL, 0, variant, err);
    if (!entry.program) return 0;
    set->entries[set->count++] = entry;
    return entry.program;
}

int program_set_holds(const skv_program_set *set, GLuint program)
{
    for (int i = 0; set && i < set->count; i++)
        if (set->entries[i].program == program) return 1;
    return 0;
}

void program_set_destroy(skv_program_set *set)
{
    for (int i = 0; i < set->count; i++) glDeleteProgram(set->entries[i].program);
    free(set->entries);
    memset(set, 0, sizeof *set);
}

void program_find_uniforms(GLuint p, skv_uniforms *u)
{
    u->model = glGetUniformLocation(p, "u_model");
    u->view = glGetUniformLocation(p, "u_view");
    u->projection = glGetUniformLocation(p, "u_projection");
    u->view_normal = glGetUniformLocation(p, "u_view_normal");
    u->diffuse = glGetUniformLocation(p, "u_diffuse");
    u->has_texture = glGetUniformLocation(p, "u_has_texture");
    u->texture = glGetUniformLocation(p, "u_texture");
    u->palettes = glGetUniformLocation(p, "u_palettes");
    u->bones_per_instance = glGetUniformLocation(p, "u_bones_per_instance");
    u->crowd_bones = glGetUniformLocation(p, "u_crowd_bones");
    u->grid_columns = glGetUniformLocation(p, "u_grid_columns");
    u->grid_spacing = glGetUniformLocation(p, "u_grid_spacing");
    u->shade_mode = glGetUniformLocation(p, "u_shade_mode");
    u->selected_bone = glGetUniformLocation(p, "u_selected_bone");
    u->metallic = glGetUniformLocation(p, "u_metallic");
    u->roughness = glGetUniformLocation(p, "u_roughness");
    u->emissive = glGetUniformLocation(p, "u_emissive");
    u->normal_scale = glGetUniformLocation(p, "u_normal_scale");
    u->occlusion_strength = glGetUniformLocation(p, "u_occlusion_strength");
    u->alpha_mode = glGetUniformLocation(p, "u_alpha_mode");
    u->alpha_cutoff = glGetUniformLocation(p, "u_alpha_cutoff");
    u->maps = glGetUniformLocation(p, "u_maps");
    u->metal_rough_map = glGetUniformLocation(p, "u_metal_rough_map");
    u->normal_map = glGetUniformLocation(p, "u_normal_map");
    u->occlusion_map = glGetUniformLocation(p, "u_occlusion_map");
    u->emissive_map = glGetUniformLocation(p, "u_emissive_map");
    u->view_up = glGetUniformLocation(p, "u_view_up");
    u->uv_maps = glGetUniformLocation(p, "u_uv_maps");
    u->morph_deltas = glGetUniformLocation(p, "u_morph_deltas");
    u->morph_weights = glGetUniformLocation(p, "u_morph_weights");
    u->morph_first_target = glGetUniformLocation(p, "u_morph_first_target");
    u->morph_count = glGetUniformLocation(p, "u_morph_count");
    u->morph_base = glGetUniformLocation(p, "u_morph_base");
    u->morph_vertices = glGetUniformLocation(p, "u_morph_vertices");
    u->morph_first_vertex = glGetUniformLocation(p, "u_morph_first_vertex");
    u->influence_starts = glGetUniformLocation(p, "u_influence_starts");
    u->influence_pairs = glGetUniformLocation(p, "u_influence_pairs");
    u->slot_ids = glGetUniformLocation(p, "u_slot_ids");
    u->slot_weights = glGetUniformLocation(p, "u_slot_weights");
}

int program_bind_bones(GLuint p)
{
    GLuint block = glGetUniformBlockIndex(p, "Bones");
    if (block == GL_INVALID_INDEX) return -1;
    glUniformBlockBinding(p, block, SKV_BONES_BINDING);
    return 0;
}
