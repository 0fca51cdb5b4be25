/* test_shader_exact.c - the real vertex shader against the CPU blend.
 *
 *   test_shader_exact CASE...     CASE = MODEL::ANIM::T0::T1[::SLOTS]
 *                                 (ANIM may be empty; SLOTS 4, 8 or all,
 *                                 default 4)
 *
 * For every case and both times, the skinned positions and normals that
 * shaders/skinned.vert computes are captured by transform feedback (one
 * point per vertex, rasteriser off) from the same vertex buffers, integer
 * bone-ID attribute and uniform-block palette the renderer draws with (a
 * crowd's capture: the same ID and weight buffers read as buffer
 * textures, and its texture-buffer palettes), and
 * compared with skin_blend() on the CPU: the largest position error must
 * stay under 1e-4 of the model's bounds diagonal, the largest normal error
 * under 1e-4. A second reference blends every influence of each vertex, not
 * just the packed slots; the table reports how far the shader's result is
 * from it. Where the slots hold every influence the model has (8 slots on
 * the 8-influence tentacle), that distance must be under 1e-4 too; where
 * they do not, it is the measured cost of the cut. Models with tangents
 * (normal-mapped meshes) have their skinned tangents checked the same way,
 * against the slots' blended matrix (linear) or dual quaternion applied to
 * the tangent as to a direction in the surface: error under 1e-4. With
 * SLOTS "all" the shader reads every influence from per-vertex lists
 * (--influences all): its positions must match the all-influence
 * reference within ALL_LIMIT of the diagonal, and so must the CPU blend
 * (skin_blend, which reads the lists too: what --export-pose writes),
 * whose normals the shader's must match within NORMAL_LIMIT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "gpu.h"
#include "render.h"
#include "skin.h"

#define POSITION_LIMIT 1e-4 /* of the bounds diagonal */
#define NORMAL_LIMIT 1e-4
#define ALL_LIMIT 1e-6 /* --influences all vs the all-influence reference, of the diagonal */

/* The larger of a running worst m and a new error d, where a NaN on
 * either side wins and stays: fmax would drop it, and a NaN must fail. */
static double worse(double m, double d)
{
    return d > m || isnan(d) ? d : m;
}

typedef struct result {
    double position_error, normal_error; /* shader vs CPU, worst of both times */
    double all_max, all_mean;             /* shader vs all influences, / diagonal */
    int slots_hold_all;                   /* no vertex has more influences than slots */
    int skipped_normals;                  /* singular blend: no normal to compare */
    int draws, split;                     /* how the renderer batched it */
    int lists;                            /* --influences all: the shader reads every influence */
    double lists_cpu_error;               /* with lists: skin_blend vs the all-influence reference, / diagonal */
    double dq_position_error, dq_normal_error; /* dual-quaternion shader vs skin_blend_dq */
    int tangents;                         /* the model has tangents: the next two are measured */
    double tangent_error, dq_tangent_error;
    int crowd;                            /* the instanced (--instances) shader was checked */
    double crowd_position_error, crowd_normal_error; /* per character, vs its own CPU blend */
} result;

#define FEEDBACK_FLOATS 9 /* position, normal, tangent */

/* Model vertex v's tangent skinned as skinned.vert does: by the 3x3 of the
 * blended matrix of its slots or list (linear), or rotated by the blended
 * dual quaternion after the blended stretch; unit length, or 0 for none. */
static void cpu_tangent(const skv_model *m, const mat4 *palette, const skv_dq_bone *dq, size_t v, double *out)
{
    const float *t = &m->tangents[v * 4];
    int slots = model_influence_count(m, (int)v);
    double blended[3] = {0, 0, 0};
    if (!dq) {
        for (int s = 0; s < slots; s++) {
            int bone;
            float w = model_influence(m, (int)v, s, &bone);
            const vec4 *b = palette[bone];
            for (int r = 0; r < 3; r++)
                blended[r] += w * ((double)b[0][r] * t[0] + (double)b[1][r] * t[1] + (double)b[2][r] * t[2]);
        }
    } else {
        double real[4] = {0, 0, 0, 0}, stretch[3][3] = {{0}};
        int first;
        model_influence(m, (int)v, 0, &first);
        const skv_dq_bone *pivot = &dq[first];
        for (int s = 0; s < slots; s++) {
            int bone;
            float w = model_influence(m, (int)v, s, &bone);
            const skv_dq_bone *b = &dq[bone];
            double d = 0;
            for (int k = 0; k < 4; k++) d += (double)b->real[k] * pivot->real[k];
            for (int k = 0; k < 4; k++) real[k] += (d < 0 ? -w : w) * b->real[k];
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) stretch[c][r] += w * b->stretch[c][r];
        }
        double len = sqrt(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
        for (int k = 0; k < 4; k++) real[k] /= len;
        double x[3];
        for (int r = 0; r < 3; r++) x[r] = stretch[0][r] * t[0] + stretch[1][r] * t[1] + stretch[2][r] * t[2];
        /* x + 2 q x (q x x + w x) */
        double c1[3] = {real[1] * x[2] - real[2] * x[1] + real[3] * x[0], real[2] * x[0] - real[0] * x[2] + real[3] * x[1],
                        real[0] * x[1] - real[1] * x[0] + real[3] * x[2]};
        double c2[3] = {real[1] * c1[2] - real[2] * c1[1], real[2] * c1[0] - real[0] * c1[2], real[0] * c1[1] - real[1] * c1[0]};
        for (int r = 0; r < 3; r++) blended[r] = x[r] + 2.0 * c2[r];
    }
    double len = sqrt(blended[0] * blended[0] + blended[1] * blended[1] + blended[2] * blended[2]);
    for (int r = 0; r < 3; r++) out[r] = len > 1e-20 ? blended[r] / len : 0.0;
}

/* The largest tangent difference over the GPU vertices (feedback layout). */
static double tangent_error(const skv_model *m, const skv_draw_set *set, size_t gpu_count, const float *gpu,
                            const mat4 *palette, const skv_dq_bone *dq)
{
    double worst = 0;
    for (size_t g = 0; g < gpu_count; g++) {
        size_t v = set->split ? (size_t)set->source_vertex[g] : g;
        double want[3];
        cpu_tangent(m, palette, dq, v, want);
        for (int a = 0; a < 3; a++) worst = worse(worst, fabs(gpu[g * FEEDBACK_FLOATS + 6 + a] - want[a]));
    }
    return worst;
}

static double diagonal_of(const float *points, int count)
{
    float lo[3], hi[3];
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    skin_bounds(points, count, id, lo, hi);
    double d2 = 0;
    for (int a = 0; a < 3; a++) d2 += (double)(hi[a] - lo[a]) * (hi[a] - lo[a]);
    return sqrt(d2);
}

/* The dual-quaternion build of the shader, captured the same way, against
 * skin_blend_dq at both times. */
static int dual_quaternion_case(skv_scene *scene, const double times[2], result *res, skv_error *err)
{
    skv_model *m = scene->model;
    const char *varyings[3] = {"v_skinned_position", "v_skinned_normal", "v_skinned_tangent"};
    skv_shader_variant variant = {.influence_slots = m->influence_slots, .dual_quaternion = 1,
                                  .morph = m->morph_target_count > 0, .influence_lists = m->influence_lists};
    GLuint program = render_program_variant("skinned.vert", "skinned.frag", varyings, 3, &variant, err);
    skv_renderer renderer;
    if (!program || render_create_with(&renderer, m, program, SKV_SKINNING_DUAL_QUATERNION, err) != SKV_OK) {
        if (program) render_destroy(&renderer);
        return -1;
    }
    const skv_draw_set *set = &renderer.draws;
    size_t n = (size_t)m->vertex_count, gpu_count = set->split ? (size_t)set->vertex_count : n;
    float *gpu = malloc(gpu_count * FEEDBACK_FLOATS * sizeof(float));
    float *cpu = malloc(n * 3 * sizeof(float)), *cpu_n = malloc(n * 3 * sizeof(float));
    skv_dq_bone *bones = malloc((size_t)(m->skeleton.bone_count > 0 ? m->skeleton.bone_count : 1) * sizeof *bones);
    GLuint feedback;
    glGenBuffers(1, &feedback);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)(gpu_count * FEEDBACK_FLOATS * sizeof(float)), NULL, GL_STREAM_READ);
    for (int t = 0; t < 2; t++) {
        scene_pose(scene, times[t]); /* bones and morph weights */
        render_feedback_morph(&renderer, m, (const mat4 *)scene->pose.palette, scene->morph_weights, feedback);
        glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
        glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)(gpu_count * FEEDBACK_FLOATS * sizeof(float)), gpu);
        skin_dq_palette((const mat4 *)scene->pose.palette, m->skeleton.bone_count, bones);
        skin_blend_dq_morph(m, bones, scene->morph_weights, cpu, cpu_n);
        if (m->tangents)
            res->dq_tangent_error = worse(res->dq_tangent_error, tangent_error(m, set, gpu_count, gpu, NULL, bones));
        double diag = diagonal_of(cpu, m->vertex_count);
        if (!(diag > 0)) diag = 1;
        for (size_t g = 0; g < gpu_count; g++) {
            size_t v = set->split ? (size_t)set->source_vertex[g] : g;
            double dp = 0, dn = 0;
            for (int a = 0; a < 3; a++) {
                dp = worse(dp, fabs(gpu[g * FEEDBACK_FLOATS + a] - cpu[v * 3 + a]));
                dn = worse(dn, fabs(gpu[g * FEEDBACK_FLOATS + 3 + a] - cpu_n[v * 3 + a]));
            }
            res->dq_position_error = worse(res->dq_position_error, dp / diag);
            if (isfinite(cpu_n[v * 3])) res->dq_normal_error = worse(res->dq_normal_error, dn);
        }
    }
    glDeleteBuffers(1, &feedback);
    free(gpu), free(cpu), free(cpu_n), free(bones);
    render_destroy(&renderer);
    return 0;
}


/* The crowd's instanced build (--instances), captured the same way for
 * CROWD characters at different times in one instanced draw, each against
 * the CPU blend of its own palette (skin_blend: positions and normals;
 * with lists the positions against every influence, skin_blend_all).
 * The crowd draws no morph targets, so the CPU blends have none either
 * (weights 0, not the defaults). Split models (over SKV_MAX_BONES bones)
 * too: their draws map local bones to the characters' full palettes. */
enum { CROWD = 3 };
static int crowd_case(skv_scene *scene, const double times[2], result *res, skv_error *err)
{
    skv_model *m = scene->model;
    skv_renderer renderer;
    if (render_create(&renderer, m, err) != SKV_OK) {
        render_destroy(&renderer);
        return -1;
    }
    const skv_draw_set *set = &renderer.draws;
    const char *varyings[3] = {"v_skinned_position", "v_skinned_normal", "v_skinned_tangent"};
    skv_shader_variant variant = {.influence_slots = m->influence_slots, .instanced = 1,
                                  .influence_lists = m->influence_lists, .split = set->split};
    GLuint program = render_program_variant("skinned.vert", "skinned.frag", varyings, 3, &variant, err);
    if (!program || render_enable_crowd_with(&renderer, m, CROWD, program, err) != SKV_OK) {
        render_destroy(&renderer);
        return -1;
    }
    res->crowd = 1;
    size_t n = (size_t)m->vertex_count, bones = (size_t)(m->skeleton.bone_count > 0 ? m->skeleton.bone_count : 1);
    size_t gpu_count = set->split ? (size_t)set->vertex_count : n; /* split: copies of model vertices */
    float *gpu = malloc(CROWD * gpu_count * FEEDBACK_FLOATS * sizeof(float));
    float *rows = malloc(CROWD * bones * 12 * sizeof(float));
    float *cpu = malloc(CROWD * n * 3 * sizeof(float)), *cpu_n = malloc(CROWD * n * 3 * sizeof(float));
    double diag[CROWD];
    /* README: crowds draw without morphs, not even at their default weights. */
    float *no_morph = calloc(m->morph_target_count > 0 ? (size_t)m->morph_target_count : 1, sizeof(float));
    const double when[CROWD] = {times[1], 0.5 * (times[0] + times[1]), times[0]};
    for (int k = 0; k < CROWD; k++) {
        scene_pose(scene, when[k]);
        const mat4 *palette = (const mat4 *)scene->pose.palette;
        /* 3x4 rows (crowd.h): row r, column c is the matrix's [c][r]. */
        for (size_t b = 0; b < (size_t)m->skeleton.bone_count; b++)
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) rows[(k * bones + b) * 12 + r * 4 + c] = palette[b][c][r];
        float *p = cpu + k * n * 3, *nrm = cpu_n + k * n * 3;
        skin_blend_morph(m, scene->pose.palette, no_morph, p, nrm); /* normals: of the lists' blend with lists */
        if (m->influence_lists) skin_blend_all_morph(m, scene->pose.palette, no_morph, p);
        diag[k] = diagonal_of(p, m->vertex_count);
        if (!(diag[k] > 0)) diag[k] = 1;
    }
    GLuint feedback;
    glGenBuffers(1, &feedback);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
    GLsizeiptr bytes = (GLsizeiptr)(CROWD * gpu_count * FEEDBACK_FLOATS * sizeof(float));
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, bytes, NULL, GL_STREAM_READ);
    render_feedback_crowd(&renderer, m, rows, CROWD, feedback);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, bytes, gpu);
    const float *point = gpu;
    for (int i = 0; i < set->draw_count; i++) {
        const skv_draw *d = &set->draws[i];
        for (int k = 0; k < CROWD; k++)
            for (int j = 0; j < d->vertex_count; j++, point += FEEDBACK_FLOATS) {
                int g = d->base_vertex + j;
                size_t v = set->split ? (size_t)set->source_vertex[g] : (size_t)g;
                const float *p = cpu + (k * n + v) * 3, *nrm = cpu_n + (k * n + v) * 3;
                double dp = 0, dn = 0;
                for (int a = 0; a < 3; a++) {
                    dp = worse(dp, fabs(point[a] - p[a]));
                    dn = worse(dn, fabs(point[3 + a] - nrm[a]));
                }
                res->crowd_position_error = worse(res->crowd_position_error, dp / diag[k]);
                if (isfinite(nrm[0]))
                    res->crowd_normal_error = worse(res->crowd_normal_error, dn);
            }
    }
    glDeleteBuffers(1, &feedback);
    free(gpu), free(rows), free(cpu), free(cpu_n), free(no_morph);
    render_destroy(&renderer);
    return 0;
}

static int run_case(const char *spec, result *res, char *name, size_t name_size)
{
    memset(res, 0, sizeof *res);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *parts[5] = {buf, NULL, NULL, NULL, NULL};
    for (int i = 1; i < 4; i++) {
        char *sep = parts[i - 1] ? strstr(parts[i - 1], "::") : NULL;
        if (!sep) {
            fprintf(stderr, "bad case '%s' (want MODEL::ANIM::T0::T1)\n", spec);
            return -1;
        }
        *sep = '\0';
        parts[i] = sep + 2;
    }
    char *slots_sep = strstr(parts[3], "::");
    if (slots_sep) {
        *slots_sep = '\0';
        parts[4] = slots_sep + 2;
    }
    int influences = !parts[4] ? 4 : strcmp(parts[4], "all") == 0 ? SKV_INFLUENCES_ALL : atoi(parts[4]);
    const char *base = strrchr(parts[0], '/');
    snprintf(name, name_size, "%.150s%s", base ? base + 1 : parts[0],
             influences == 8 ? " (8 slots)" : influences == SKV_INFLUENCES_ALL ? " (all, lists)" : "");

    skv_scene scene;
    skv_error err = {{0}};
    if (scene_load(&scene, parts[0], parts[1][0] ? parts[1] : NULL, &(skv_import_desc){.influences = influences},
                   &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", parts[0], err.message);
        return -1;
    }
    skv_model *m = scene.model;
    const char *varyings[3] = {"v_skinned_position", "v_skinned_normal", "v_skinned_tangent"};
    /* Models with morph targets get the shader's morph build, as the renderer does. */
    skv_shader_variant variant = {.influence_slots = m->influence_slots, .morph = m->morph_target_count > 0,
                                  .influence_lists = m->influence_lists};
    res->lists = m->influence_lists;
    GLuint program = render_program_variant("skinned.vert", "skinned.frag", varyings, 3, &variant, &err);
    skv_renderer renderer;
    if (!program || render_create_with(&renderer, m, program, SKV_SKINNING_LINEAR, &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", parts[0], err.message);
        render_destroy(&renderer);
        scene_free(&scene);
        return -1;
    }
    size_t n = (size_t)m->vertex_count;
    /* Split mode (more bones than one draw holds): GPU vertex i is a copy
     * of model vertex source[i], some model vertices several times. */
    const skv_draw_set *set = &renderer.draws;
    size_t gpu_count = set->split ? (size_t)set->vertex_count : n;
    res->draws = set->draw_count;
    res->split = set->split;
    float *gpu = malloc(gpu_count * FEEDBACK_FLOATS * sizeof(float));
    float *cpu = malloc(n * 3 * sizeof(float)), *cpu_n = malloc(n * 3 * sizeof(float));
    float *all = malloc(n * 3 * sizeof(float));
    GLuint feedback;
    glGenBuffers(1, &feedback);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)(gpu_count * FEEDBACK_FLOATS * sizeof(float)), NULL, GL_STREAM_READ);

    double times[2] = {atof(parts[2]), atof(parts[3])}, sum_all = 0;
    for (int t = 0; t < 2; t++) {
        scene_pose(&scene, times[t]); /* bones and morph weights */
        render_feedback_morph(&renderer, m, (const mat4 *)scene.pose.palette, scene.morph_weights, feedback);
        glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
        glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)(gpu_count * FEEDBACK_FLOATS * sizeof(float)), gpu);
        skin_blend_morph(m, scene.pose.palette, scene.morph_weights, cpu, cpu_n);
        skin_blend_all_morph(m, scene.pose.palette, scene.morph_weights, all);
        if (m->tangents)
            res->tangent_error = worse(res->tangent_error, tangent_error(m, set, gpu_count, gpu,
                                                                        (const mat4 *)scene.pose.palette, NULL));
        double diag = diagonal_of(cpu, m->vertex_count);
        if (!(diag > 0)) diag = 1;
        for (size_t g = 0; g < gpu_count; g++) {
            size_t v = set->split ? (size_t)set->source_vertex[g] : g;
            double dp = 0, dn = 0, da = 0;
            for (int a = 0; a < 3; a++) {
                dp = worse(dp, fabs(gpu[g * FEEDBACK_FLOATS + a] - cpu[v * 3 + a]));
                dn = worse(dn, fabs(gpu[g * FEEDBACK_FLOATS + 3 + a] - cpu_n[v * 3 + a]));
                double d = gpu[g * FEEDBACK_FLOATS + a] - all[v * 3 + a];
                da += d * d;
            }
            if (res->lists) {
                res->position_error = worse(res->position_error, sqrt(da) / diag); /* against every influence */
                /* skin_blend blends the lists too (what --export-pose writes): the
                 * same points as the all-influence reference, and the shader's normals. */
                double dc = 0;
                for (int a = 0; a < 3; a++) dc = worse(dc, fabs(cpu[v * 3 + a] - all[v * 3 + a]));
                res->lists_cpu_error = worse(res->lists_cpu_error, dc / diag);
                if (isfinite(cpu_n[v * 3]))
                    res->normal_error = worse(res->normal_error, dn);
                else res->skipped_normals++;
            } else {
                res->position_error = worse(res->position_error, dp / diag);
                if (isfinite(cpu_n[v * 3]))
                    res->normal_error = worse(res->normal_error, dn);
                else res->skipped_normals++;
            }
            res->all_max = worse(res->all_max, sqrt(da) / diag);
            sum_all += sqrt(da) / diag;
        }
    }
    res->all_mean = sum_all / (2.0 * (double)gpu_count);
    res->slots_hold_all = model_over_limit_vertices(m) == 0;
    res->tangents = m->tangents != NULL;
    glDeleteBuffers(1, &feedback);
    free(gpu), free(cpu), free(cpu_n), free(all);
    render_destroy(&renderer);
    int dq = dual_quaternion_case(&scene, times, res, &err);
    if (dq != 0) fprintf(stderr, "%s: dual quaternion: %s\n", parts[0], err.message);
    int crowd = crowd_case(&scene, times, res, &err);
    if (crowd != 0) fprintf(stderr, "%s: crowd: %s\n", parts[0], err.message);
    scene_free(&scene);
    return dq != 0 ? dq : crowd;
}

int main(int argc, char **argv)
{
    skv_gpu gpu;
    skv_error err = {{0}};
    if (gpu_headless_create(&gpu, 1, &err) != SKV_OK) {
        fprintf(stderr, "test_shader_exact: %s\n", err.message);
        return 1;
    }
    /* Surfaceless EGL has no default framebuffer: draws need one bound,
     * even with the rasteriser off. */
    skv_target target;
    if (target_create(&target, 4, 4, &err) != SKV_OK) {
        fprintf(stderr, "test_shader_exact: %s\n", err.message);
        return 1;
    }
    target_bind(&target);
    skv_gl_debug debug;
    if (render_debug_begin(&debug, NULL) != SKV_OK) {
        fprintf(stderr, "test_shader_exact: no KHR_debug to watch for GL errors\n");
        return 1;
    }
    int passed = 0, failed = 0;
    printf("%-42s %11s %11s | %-28s | %-21s\n", "model", "shader pos", "shader nrm", "shader vs all influences",
           "dual-quaternion shader");
    printf("%-42s %11s %11s | %13s %14s | %10s %10s\n", "", "vs CPU/diag", "vs CPU", "max /diag", "mean /diag",
           "pos /diag", "nrm");
    for (int i = 1; i < argc; i++) {
        result res;
        char name[256];
        if (run_case(argv[i], &res, name, sizeof name) != 0) {
            failed++;
            continue;
        }
        int ok = res.position_error < (res.lists ? ALL_LIMIT : POSITION_LIMIT) && res.normal_error < NORMAL_LIMIT &&
                 res.lists_cpu_error < ALL_LIMIT &&
                 (!res.slots_hold_all || res.all_max < POSITION_LIMIT) && res.dq_position_error < POSITION_LIMIT &&
                 res.dq_normal_error < NORMAL_LIMIT && res.tangent_error < NORMAL_LIMIT &&
                 res.dq_tangent_error < NORMAL_LIMIT &&
                 (!res.crowd || (res.crowd_position_error < (res.lists ? ALL_LIMIT : POSITION_LIMIT) &&
                                 res.crowd_normal_error < NORMAL_LIMIT));
        printf("%-42s %11.2e %11.2e | %13.2e %14.2e | %10.2e %10.2e %s", name, res.position_error, res.normal_error,
               res.all_max, res.all_mean, res.dq_position_error, res.dq_normal_error, ok ? "ok" : "FAILED");
        if (res.lists) printf(" (shader pos: vs every influence; CPU blend of the lists vs every influence %.2e)", res.lists_cpu_error);
        else if (!res.slots_hold_all) printf(" (slots drop influences)");
        if (res.split) printf(" (split into %d draws)", res.draws);
        printf(" (crowd of %d: pos %.2e, nrm %.2e)", CROWD, res.crowd_position_error, res.crowd_normal_error);
        if (res.tangents) printf(" (tangents vs CPU: linear %.2e, dual quaternion %.2e)", res.tangent_error, res.dq_tangent_error);
        if (res.skipped_normals) printf(" (%d singular normals skipped)", res.skipped_normals);
        printf("\n");
        ok ? passed++ : failed++;
    }
    if (debug.errors) {
        printf("GL reported %d error(s); the first: %s\n", debug.errors, debug.first);
        failed++;
    }
    target_destroy(&target);
    gpu_headless_destroy(&gpu);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
