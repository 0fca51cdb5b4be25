/* scene.c - the scene both drivers share: loading, clip and clock,
 * blends and cross-fades, crowds, views, camera framing, the frame
 * function (scene_draw) and the renderer it needs. */
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "morph.h"
#include "skin.h"

/* Samples over the clip for the framing bounds: enough to catch the
 * extremes of ordinary motion without costing more than a load. */
#define FRAMING_SAMPLES 32

/* The root-motion node of the clip and where it starts. */
static void find_root(skv_scene *scene)
{
    scene->root_node = camera_root_motion_node(scene->model, scene->clip);
    memset(scene->root_start, 0, sizeof scene->root_start);
    memset(scene->root_offset, 0, sizeof scene->root_offset);
    if (scene->root_node < 0) return;
    skv_pose pose;
    if (pose_create(&pose, &scene->model->skeleton) != SKV_OK) return;
    pose_evaluate(&pose, scene->walks, scene->clip, 0.0);
    camera_node_position(scene->model, pose_globals(&pose), scene->root_node, scene->root_start);
    pose_destroy(&pose);
}

/* A file with a skeleton and no mesh, drawn as its stick figure: ours
 * (stick.c), or the one Assimp's reader builds for a format that has no
 * meshes (BVH: its SkeletonMeshBuilder's material). */
static int stick_figure(const skv_model *model)
{
    return model->skeleton_only || (model->material_count == 1 && model->materials[0].name &&
                                    strcmp(model->materials[0].name, "SkeletonMaterial") == 0);
}

static void frame_clip(skv_scene *scene)
{
    float lo[3], hi[3];
    find_root(scene);
    int steady = scene->follow || scene->in_place ? scene->root_node : -1;
    /* Framing on the pose shown (at frame_seconds), or the whole clip. */
    int samples = scene->frame_pose ? 1 : FRAMING_SAMPLES;
    double start = scene->frame_pose ? scene->frame_seconds : 0.0;
    skv_camera framed; /* on the vertices; on boxes where more than the model is drawn */
    /* With layers or a blend, the pose drawn is not the clip's: framed as
     * drawn. A crowd plays layers, not a blend (crowd.c). */
    skv_frame_pose drawn = {.layers = scene->layers, .blend_clip = scene->instances > 0 ? -1 : scene->blend_clip,
                            .blend_weight = scene->blend_weight};
    if (camera_framed_drawn(scene->walks, &drawn, scene->clip, start, samples, steady, lo, hi, &framed) != SKV_OK) {
        lo[0] = lo[1] = lo[2] = -1.0f;
        hi[0] = hi[1] = hi[2] = 1.0f;
        camera_frame(&framed, lo, hi);
    }
    float start_lo[3], start_hi[3]; /* a stick figure is centred where it starts */
    if (stick_figure(scene->model) && samples > 1 && steady < 0 &&
        camera_framed_drawn(scene->walks, &drawn, scene->clip, 0.0, 1, -1, start_lo, start_hi, NULL) == SKV_OK) {
        camera_centre_box_on(lo, hi, start_lo, start_hi);
        camera_frame(&framed, lo, hi);
    }
    memcpy(scene->frame_lo, lo, sizeof lo);
    memcpy(scene->frame_hi, hi, sizeof hi);
    if (scene->view.bind_pose && scene->instances == 0) {
        /* The bind-pose copy stands to the right as the default camera
         * sees it (along its right vector on the ground), clear of the
         * animated one; the framed box grows to hold both. */
        float yaw = glm_rad(25.0f), dx = hi[0] - lo[0], dz = hi[2] - lo[2];
        float apart = 1.15f * sqrtf(dx * dx + dz * dz);
        if (!(apart > 0.0f)) apart = 1.0f;
        scene->ghost_offset[0] = apart * cosf(yaw);
        scene->ghost_offset[1] = 0.0f;
        scene->ghost_offset[2] = -apart * sinf(yaw);
        float boxes_lo[2][3], boxes_hi[2][3];
        for (int a = 0; a < 3; a++) {
            boxes_lo[0][a] = lo[a], boxes_lo[1][a] = lo[a] + scene->ghost_offset[a];
            boxes_hi[0][a] = hi[a], boxes_hi[1][a] = hi[a] + scene->ghost_offset[a];
        }
        camera_frame_boxes(&framed, 2, (const float(*)[3])boxes_lo, (const float(*)[3])boxes_hi);
        for (int a = 0; a < 3; a += 2) {
            lo[a] = fminf(lo[a], lo[a] + scene->ghost_offset[a]);
            hi[a] = fmaxf(hi[a], hi[a] + scene->ghost_offset[a]);
        }
    }
    if (scene->instances > 0) {
        /* The grid: a quarter of a character's footprint between them. */
        float footprint = fmaxf(hi[0] - lo[0], hi[2] - lo[2]);
        scene->grid_spacing = 1.25f * (footprint > 0.0f ? footprint : 1.0f);
        int columns = crowd_columns(scene->instances);
        int rows = (scene->instances + columns - 1) / columns;
        hi[0] += (float)(columns - 1) * scene->grid_spacing;
        hi[2] += (float)(rows - 1) * scene->grid_spacing;
        camera_frame_boxes(&framed, 1, (const float(*)[3])lo, (const float(*)[3])hi);
    }
    scene->camera = framed;
    scene->home = scene->camera;
}

/* Frames the camera if it is due (scene.h: framing_due): a reframe keeps
 * the angles and zoom the user chose, both the camera's and those R
 * returns to (scene_set_camera's): only the framing changes. */
static void ensure_framed(skv_scene *scene)
{
    if (!scene->framing_due) return;
    int first = scene->framing_due == 1;
    scene->framing_due = 0;
    skv_camera user = scene->camera, home = scene->home;
    frame_clip(scene);
    if (first) return;
    scene->camera.yaw = user.yaw, scene->camera.pitch = user.pitch, scene->camera.zoom = user.zoom;
    scene->home.yaw = home.yaw, scene->home.pitch = home.pitch, scene->home.zoom = home.zoom;
}

/* The framing is to be redone when next needed. The root-motion node is
 * found now: posing follows it whether or not anything is drawn. */
static void reframe(skv_scene *scene)
{
    find_root(scene);
    if (scene->framing_due != 1) scene->framing_due = 2;
}

skv_result scene_set_instances(skv_scene *scene, int count, int mixed_clips, skv_error *err)
{
    if (scene->instances > 0) crowd_destroy(&scene->crowd);
    scene->instances = 0;
    if (count < 1) return skv_fail(err, SKV_ERR_ARGUMENT, "a crowd needs at least 1 character");
    if (crowd_create(&scene->crowd, scene->walks, count, scene->clip, mixed_clips, 0) != SKV_OK)
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory for %d characters", count);
    scene->instances = count;
    scene->mixed_clips = mixed_clips;
    crowd_set_layers(&scene->crowd, scene->layers);
    reframe(scene);
    return SKV_OK;
}

skv_result scene_load(skv_scene *scene, const char *path, const char *anim, const skv_import_desc *import,
                      skv_error *err)
{
    memset(scene, 0, sizeof *scene);
    scene->blend_clip = scene->fade_clip = -1;
    scene->fade_seconds = 0.25;
    scene->clock = (skv_clock){.speed = 1.0};
    scene->view = (skv_view_options){.weight_bone = 0, .background = {0.16f, 0.18f, 0.22f}};
    scene->model = malloc(sizeof *scene->model);
    if (!scene->model) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    skv_result r = import_model(path, import, scene->model, err);
    if (r != SKV_OK) {
        free(scene->model);
        scene->model = NULL;
        return r;
    }
    scene->clip = scene->model->clip_count > 0 ? 0 : -1;
    if (anim) {
        scene->clip = model_find_clip(scene->model, anim);
        if (scene->clip < 0) {
            r = skv_fail(err, SKV_ERR_ANIM, "no clip '%s' (it has %d)", anim, scene->model->clip_count);
            scene_free(scene);
            return r;
        }
    }
    /* A skeleton without a mesh shows as its stick figure: the skeleton
     * view marks its joints. */
    if (scene->model->skeleton_only) scene->view.skeleton = 1;
    if (scene->model->morph_target_count > 0) {
        size_t targets = (size_t)scene->model->morph_target_count;
        scene->morph_weights = malloc(targets * sizeof(float));
        scene->morph_override = malloc(targets * sizeof(float));
        scene->morph_other = malloc(targets * sizeof(float));
        if (!scene->morph_weights || !scene->morph_override || !scene->morph_other) {
            scene_free(scene);
            return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        }
        memcpy(scene->morph_weights, scene->model->morph_default_weights, targets * sizeof(float));
        for (size_t t = 0; t < targets; t++) scene->morph_override[t] = NAN;
    }
    if (walks_create(&scene->walks, scene->model) != SKV_OK ||
        pose_create(&scene->pose, &scene->model->skeleton) != SKV_OK) {
        scene_free(scene); /* the model, its walks and the morph buffers */
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    find_root(scene);
    scene->framing_due = 1; /* framed when first drawn */
    return SKV_OK;
}

/* The layers and their descriptions gone (none). */
static void layers_free(skv_scene *scene)
{
    if (scene->instances > 0) crowd_set_layers(&scene->crowd, NULL);
    layers_destroy(scene->layers);
    for (int i = 0; scene->layer_names && i < scene->layer_count; i++) free(scene->layer_names[i]);
    free(scene->layer_names);
    free(scene->layer_desc);
    free(scene->layer_masks);
    scene->layers = NULL, scene->layer_names = NULL, scene->layer_desc = NULL, scene->layer_masks = NULL;
    scene->layer_count = scene->layer_picked = 0;
}

skv_result scene_set_layers(skv_scene *scene, const skv_layer_desc *desc, const char *const *names, int count,
                            skv_error *err)
{
    layers_free(scene);
    if (count <= 0) return SKV_OK;
    skv_layers *layers = NULL;
    skv_result r = layers_create(&layers, scene->model, desc, count, err);
    if (r != SKV_OK) return r;
    int masks = 0;
    for (int i = 0; i < count; i++) masks += desc[i].mask_count;
    scene->layers = layers;
    scene->layer_count = count;
    scene->layer_desc = malloc((size_t)count * sizeof *scene->layer_desc);
    scene->layer_masks = malloc((size_t)(masks > 0 ? masks : 1) * sizeof *scene->layer_masks);
    scene->layer_names = calloc((size_t)count, sizeof *scene->layer_names);
    int ok = scene->layer_desc && scene->layer_masks && scene->layer_names;
    for (int i = 0, at = 0; ok && i < count; i++) {
        scene->layer_desc[i] = desc[i];
        if (desc[i].mask_count > 0) memcpy(&scene->layer_masks[at], desc[i].mask, (size_t)desc[i].mask_count * sizeof(int));
        scene->layer_desc[i].mask = desc[i].mask_count > 0 ? &scene->layer_masks[at] : NULL;
        at += desc[i].mask_count;
        scene->layer_names[i] = strdup(names && names[i] ? names[i] : "");
        ok = scene->layer_names[i] != NULL;
    }
    if (!ok) {
        layers_free(scene);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory for the layers");
    }
    if (scene->instances > 0) crowd_set_layers(&scene->crowd, scene->layers);
    reframe(scene); /* the camera frames the layered pose */
    return SKV_OK;
}

void scene_pick_layer(skv_scene *scene, int step)
{
    if (scene->layer_count > 0)
        scene->layer_picked = ((scene->layer_picked + step) % scene->layer_count + scene->layer_count) % scene->layer_count;
}

void scene_change_layer_weight(skv_scene *scene, float delta)
{
    if (!scene->layers) return;
    float *w = &scene->layers->weight[scene->layer_picked];
    float next = roundf((*w + delta) * 100.0f) / 100.0f; /* steps land on 0.1, 0.2, ... */
    *w = next < 0.0f ? 0.0f : next > 1.0f ? 1.0f : next;
}

void scene_toggle_layer_mute(skv_scene *scene)
{
    if (scene->layers) scene->layers->muted[scene->layer_picked] = !scene->layers->muted[scene->layer_picked];
}

void scene_free(skv_scene *scene)
{
    layers_free(scene);
    if (scene->instances > 0) crowd_destroy(&scene->crowd);
    if (scene->bind.local) pose_destroy(&scene->bind);
    lines_free(&scene->bones);
    lines_free(&scene->joints);
    lines_free(&scene->depth_lines);
    free(scene->skinned_positions);
    free(scene->skinned_normals);
    free(scene->dq_bones);
    free(scene->joint_flags);
    free(scene->morph_weights);
    free(scene->morph_override);
    free(scene->morph_other);
    pose_destroy(&scene->pose);
    walks_destroy(scene->walks);
    if (scene->model) model_free(scene->model);
    free(scene->model);
}

skv_result scene_add_clips(skv_scene *scene, const char *path, const skv_import_desc *import, int only_without_mesh,
                           int *added, skv_error *err)
{
    skv_result r = import_add_clips(scene->model, path, import, only_without_mesh, added, err);
    /* The clips moved and the rest pose may have changed, even where the
     * add failed part way: the walks go, and every pose settles again. */
    if (walks_forget(scene->walks) != SKV_OK && r == SKV_OK)
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory for the walks of the clips added");
    if (scene->layers) { /* their references and rest transforms sampled again */
        skv_layers *again = NULL;
        skv_error ignored;
        if (layers_create(&again, scene->model, scene->layer_desc, scene->layer_count, &ignored) == SKV_OK) {
            for (int i = 0; i < again->count; i++)
                again->weight[i] = scene->layers->weight[i], again->muted[i] = scene->layers->muted[i];
            layers_destroy(scene->layers);
            scene->layers = again;
            if (scene->instances > 0) crowd_set_layers(&scene->crowd, again);
        } else if (r == SKV_OK) {
            r = skv_fail(err, SKV_ERR_MEMORY, "out of memory for the layers");
        }
    }
    return r;
}

skv_result scene_set_clip(skv_scene *scene, int clip, skv_error *err)
{
    if (clip < 0 || clip >= scene->model->clip_count)
        return skv_fail(err, SKV_ERR_ANIM, "no clip %d (it has %d)", clip, scene->model->clip_count);
    scene->clip = clip;
    if (scene->instances > 0 && !scene->mixed_clips) /* a crowd of one clip: made again on the new one */
        return scene_set_instances(scene, scene->instances, 0, err); /* framed there */
    reframe(scene);
    return SKV_OK;
}

void scene_set_motion(skv_scene *scene, int follow, int in_place, int frame_pose, double frame_seconds)
{
    scene->follow = follow;
    scene->in_place = in_place;
    scene->frame_pose = frame_pose;
    scene->frame_seconds = frame_seconds;
    reframe(scene);
}

void scene_placement(const skv_scene *scene, mat4 out)
{
    glm_mat4_copy((vec4 *)scene->model->upright, out);
    if (scene->in_place && scene->instances == 0) {
        mat4 back;
        glm_translate_make(back, (vec3){-scene->root_offset[0], 0.0f, -scene->root_offset[2]});
        glm_mat4_mul(back, out, out);
    }
}

void scene_set_view(skv_scene *scene, const skv_view_options *view)
{
    int ghost_changed = view->bind_pose != scene->view.bind_pose;
    scene->view = *view;
    if (scene->view.weight_bone < 0 || scene->view.weight_bone >= scene->model->skeleton.bone_count)
        scene->view.weight_bone = 0;
    if (ghost_changed) reframe(scene);
}

skv_result scene_skin(skv_scene *scene, float *positions, float *normals)
{
    const skv_model *m = scene->model;
    if (scene->skinning != SKV_SKINNING_DUAL_QUATERNION) {
        skin_blend_morph(m, (const mat4 *)scene->pose.palette, scene->morph_weights, positions, normals);
        return SKV_OK;
    }
    if (!scene->dq_bones) {
        scene->dq_bones = malloc((size_t)(m->skeleton.bone_count > 0 ? m->skeleton.bone_count : 1) *
                                 sizeof *scene->dq_bones);
        if (!scene->dq_bones) return SKV_ERR_MEMORY;
    }
    skin_dq_palette((const mat4 *)scene->pose.palette, m->skeleton.bone_count, scene->dq_bones);
    skin_blend_dq_morph(m, scene->dq_bones, scene->morph_weights, positions, normals);
    return SKV_OK;
}

/* The per-frame parts of the views; SKV_ERR_MEMORY when a view's buffers
 * cannot be had (the frame then goes without it). */
static skv_result frame_views(skv_scene *scene, skv_frame_desc *frame)
{
    const skv_view_options *v = &scene->view;
    const skv_model *m = scene->model;
    memcpy(frame->background, v->background, sizeof frame->background);
    frame->shade = v->shade;
    frame->selected_bone = v->weight_bone;
    frame->wireframe = v->wireframe;
    frame->axes = v->axes;
    if (scene->instances > 0) return SKV_OK; /* crowds draw plain */
    int failed = 0;
    if (v->skeleton) {
        lines_clear(&scene->bones);
        lines_clear(&scene->joints);
        int selected = v->shade == SKV_SHADE_WEIGHTS ? v->weight_bone : -1;
        mat4 placed;
        scene_placement(scene, placed);
        if (!scene->joint_flags && (scene->joint_flags = malloc((size_t)(m->skeleton.node_count > 0 ? m->skeleton.node_count : 1))))
            overlay_joint_flags(m, scene->joint_flags); /* once per model, not per frame */
        if (scene->joint_flags && overlay_skeleton(m, scene->joint_flags, pose_globals(&scene->pose), placed, selected,
                                                   &scene->bones, &scene->joints) == SKV_OK) {
            frame->overlay_lines = &scene->bones;
            frame->overlay_points = &scene->joints;
        } else {
            failed = 1;
        }
    }
    if (v->bind_pose) {
        if (!scene->bind.local) pose_create(&scene->bind, &m->skeleton); /* leaves local NULL on failure */
        failed |= !scene->bind.local;
        if (scene->bind.local) {
            pose_evaluate(&scene->bind, scene->walks, -1, 0.0);
            frame->ghost_palette = (const mat4 *)scene->bind.palette;
            glm_translate_make(frame->ghost_model, scene->ghost_offset);
            glm_mat4_mul(frame->ghost_model, (vec4 *)m->upright, frame->ghost_model);
        }
    }
    if (v->normals || v->grid) {
        lines_clear(&scene->depth_lines);
        int lines_failed = 0;
        if (v->normals) {
            size_t n = (size_t)(m->vertex_count > 0 ? m->vertex_count : 1) * 3 * sizeof(float);
            if (!scene->skinned_positions) scene->skinned_positions = malloc(n);
            if (!scene->skinned_normals) scene->skinned_normals = malloc(n);
            if (scene->skinned_positions && scene->skinned_normals &&
                scene_skin(scene, scene->skinned_positions, scene->skinned_normals) == SKV_OK) {
                mat4 placed;
                scene_placement(scene, placed);
                lines_failed |= overlay_normals(m, scene->skinned_positions, scene->skinned_normals, placed,
                                                0.04f * scene->camera.radius, &scene->depth_lines) != SKV_OK;
            } else {
                lines_failed = 1;
            }
        }
        if (v->grid) lines_failed |= overlay_grid(scene->frame_lo, scene->frame_hi, &scene->depth_lines) != SKV_OK;
        if (!lines_failed) frame->depth_lines = &scene->depth_lines;
        failed |= lines_failed;
    }
    return failed ? SKV_ERR_MEMORY : SKV_OK;
}

void scene_set_camera(skv_scene *scene, float azimuth, float elevation, float zoom)
{
    /* Not framed yet: the first framing keeps these angles and zoom. */
    if (scene->framing_due == 1) scene->framing_due = 2;
    scene->camera.yaw = azimuth;
    scene->camera.pitch = elevation;
    scene->camera.zoom = zoom;
    scene->home = scene->camera;
}

void scene_set_skinning(skv_scene *scene, skv_skinning skinning)
{
    scene->skinning = skinning;
}

void scene_set_fade(skv_scene *scene, double seconds)
{
    scene->fade_seconds = seconds;
}

void scene_orbit(skv_scene *scene, float azimuth_degrees, float elevation_degrees)
{
    ensure_framed(scene);
    skv_camera *c = &scene->camera;
    c->yaw += azimuth_degrees;
    c->pitch += elevation_degrees;
    if (c->pitch > 89.0f) c->pitch = 89.0f;
    if (c->pitch < -89.0f) c->pitch = -89.0f;
}

void scene_zoom(skv_scene *scene, float factor)
{
    ensure_framed(scene);
    scene->camera.zoom *= factor;
}

void scene_reset_camera(skv_scene *scene)
{
    ensure_framed(scene);
    scene->camera = scene->home;
}

void scene_set_paused(skv_scene *scene, int paused)
{
    scene->clock.paused = paused;
}

void scene_set_speed(skv_scene *scene, double speed)
{
    scene->clock.speed = speed;
}

void scene_set_stop_at_end(skv_scene *scene, int stop_at_end)
{
    scene->clock.stop_at_end = stop_at_end;
}

void scene_carry_settings(skv_scene *scene, const skv_scene *from)
{
    scene->fade_seconds = from->fade_seconds;
    scene->clock = from->clock;
    scene->clock.seconds = 0.0;
    skv_view_options view = from->view;
    view.weight_bone = 0;
    view.skeleton |= scene->view.skeleton; /* a stick figure shows its joints */
    scene_set_view(scene, &view);
}

void scene_set_clock(skv_scene *scene, double seconds, double speed)
{
    scene->clock.seconds = seconds;
    scene->clock.speed = speed;
}

void scene_advance(skv_scene *scene, double wall_seconds)
{
    skv_clock *c = &scene->clock;
    if (!c->paused) c->seconds += wall_seconds * c->speed;
    double duration = scene_clip_seconds(scene);
    if (c->stop_at_end && duration > 0.0 && c->seconds >= duration) { /* hold the last frame */
        c->seconds = duration * 0.99999;
        c->paused = 1;
    }
}

void scene_seek(skv_scene *scene, double seconds)
{
    scene->clock.seconds = seconds;
    scene->clock.paused = 1;
}

double scene_shown_seconds(const skv_scene *scene)
{
    double duration = scene_clip_seconds(scene), t = scene->clock.seconds;
    if (duration <= 0.0) return 0.0;
    if (scene->clock.stop_at_end) return t < 0.0 ? 0.0 : t > duration ? duration : t;
    return fmod(fmod(t, duration) + duration, duration);
}

skv_result scene_switch_clip(skv_scene *scene, int clip, skv_error *err)
{
    skv_result r = scene_crossfade_to(scene, clip, scene->clock.seconds, err);
    scene->clock.seconds = 0.0;
    return r;
}

skv_result scene_crossfade_to(skv_scene *scene, int clip, double current_seconds, skv_error *err)
{
    int from = scene->clip;
    skv_result r = scene_set_clip(scene, clip, err);
    if (r == SKV_OK && from >= 0 && from != scene->clip && scene->fade_seconds > 0.0) {
        scene->fade_clip = from;
        scene->fade_from = current_seconds;
    }
    return r;
}

void scene_set_blend(skv_scene *scene, int other, float weight)
{
    scene->blend_clip = other >= 0 && other < scene->model->clip_count ? other : -1;
    scene->blend_weight = weight;
    reframe(scene); /* the camera frames the blended pose */
}

void scene_set_morph(skv_scene *scene, int target, float weight)
{
    if (target >= 0 && target < scene->model->morph_target_count) scene->morph_override[target] = weight;
}

/* The morph weights at the pose: clip `a` at seconds_a mixed with clip b
 * (-1: none) at seconds_b by w, as the bones are, then the overrides. */
static void pose_morphs(skv_scene *scene, int a, double seconds_a, int b, double seconds_b, float w)
{
    const skv_model *m = scene->model;
    if (m->morph_target_count == 0) return;
    morph_weights(m, a, seconds_a, scene->morph_weights);
    if (b >= 0) {
        morph_weights(m, b, seconds_b, scene->morph_other);
        for (int t = 0; t < m->morph_target_count; t++)
            scene->morph_weights[t] += (scene->morph_other[t] - scene->morph_weights[t]) * w;
    }
    for (int t = 0; t < m->morph_target_count; t++)
        if (!isnan(scene->morph_override[t])) scene->morph_weights[t] = scene->morph_override[t];
}

void scene_pose(skv_scene *scene, double seconds)
{
    if (scene->fade_clip >= 0 && !(seconds < scene->fade_seconds)) scene->fade_clip = -1; /* faded out */
    if (scene->layers) { /* over the clip at once (no cross-fade) */
        scene->fade_clip = -1;
        pose_evaluate_layers(&scene->pose, scene->walks, scene->clip, seconds, scene->layers);
        pose_morphs(scene, scene->clip, seconds, -1, 0.0, 0.0f);
    } else if (scene->blend_clip >= 0) {
        pose_evaluate_blend(&scene->pose, scene->model, scene->clip, seconds, scene->blend_clip, seconds,
                            scene->blend_weight);
        pose_morphs(scene, scene->clip, seconds, scene->blend_clip, seconds, scene->blend_weight);
    } else if (scene->fade_clip >= 0) {
        /* Smoothstep: no kink where the fade starts and ends. */
        double x = seconds > 0.0 ? seconds / scene->fade_seconds : 0.0;
        float w = (float)(x * x * (3.0 - 2.0 * x));
        pose_evaluate_blend(&scene->pose, scene->model, scene->fade_clip, scene->fade_from + seconds, scene->clip,
                            seconds, w);
        pose_morphs(scene, scene->fade_clip, scene->fade_from + seconds, scene->clip, seconds, w);
    } else {
        pose_evaluate(&scene->pose, scene->walks, scene->clip, seconds);
        pose_morphs(scene, scene->clip, seconds, -1, 0.0, 0.0f);
    }
}

/* The root's horizontal travel since the clip's start; the camera follows
 * it (its angles and zoom stay the user's). */
static void track_root(skv_scene *scene)
{
    memset(scene->root_offset, 0, sizeof scene->root_offset);
    if (scene->root_node < 0 || !(scene->follow || scene->in_place) || scene->instances > 0) return;
    float at[3];
    camera_node_position(scene->model, pose_globals(&scene->pose), scene->root_node, at);
    scene->root_offset[0] = at[0] - scene->root_start[0];
    scene->root_offset[2] = at[2] - scene->root_start[2];
    if (scene->follow && !scene->in_place) {
        scene->camera.center[0] = scene->home.center[0] + scene->root_offset[0];
        scene->camera.center[2] = scene->home.center[2] + scene->root_offset[2];
    }
}

skv_result scene_frame(skv_scene *scene, double seconds, int width, int height, skv_frame_desc *frame)
{
    ensure_framed(scene);
    scene_pose(scene, seconds);
    track_root(scene);
    *frame = (skv_frame_desc){.palette = (const mat4 *)scene->pose.palette, .background = {0.16f, 0.18f, 0.22f},
                              .skinning = scene->skinning, .morph_weights = scene->morph_weights};
    skv_result r = frame_views(scene, frame);
    if (scene->instances > 0) {
        crowd_evaluate(&scene->crowd, seconds);
        frame->instance_count = scene->instances;
        frame->instance_palettes = scene->crowd.palettes;
        frame->grid_columns = crowd_columns(scene->instances);
        frame->grid_spacing = scene->grid_spacing;
    }
    scene_placement(scene, frame->model);
    camera_matrices(&scene->camera, width, height, frame->view, frame->projection);
    return r;
}

skv_result scene_renderer_create(skv_scene *scene, skv_program_set *programs, skv_renderer *renderer, skv_error *err)
{
    skv_result r = render_create_from(renderer, scene->model, programs, err);
    if (r != SKV_OK && renderer->lists_too_large && scene->model->influence_lists_auto) {
        /* Lists the default chose, past what this driver's buffer
         * textures hold: the 4 largest influences, on screen and in the
         * framing alike; the caller warns (renderer->lists_too_large). */
        long long texels = renderer->lists_too_large;
        int most = renderer->max_list_texels;
        render_destroy(renderer);
        scene->model->influence_lists = 0;
        reframe(scene); /* on the pose now drawn */
        r = render_create_from(renderer, scene->model, programs, err);
        renderer->lists_too_large = texels, renderer->max_list_texels = most;
    }
    if (r == SKV_OK && scene->instances > 0) r = render_enable_crowd(renderer, scene->model, scene->instances, err);
    if (r == SKV_OK && scene->skinning == SKV_SKINNING_DUAL_QUATERNION)
        r = render_enable_dual_quaternion(renderer, scene->model, err);
    if (r != SKV_OK) render_destroy(renderer);
    return r;
}

skv_result scene_draw(skv_scene *scene, skv_renderer *renderer, skv_target *target, double seconds,
                      skv_frame_desc *frame, skv_error *err)
{
    if (scene_frame(scene, seconds, target->width, target->height, frame) != SKV_OK)
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory for the inspection views");
    if (frame->depth_lines || frame->overlay_lines || frame->overlay_points || frame->axes) {
        skv_result r = render_enable_lines(renderer, err);
        if (r != SKV_OK) return r;
    }
    target_bind(target);
    render_frame(renderer, scene->model, frame);
    return SKV_OK;
}

double scene_clip_seconds(const skv_scene *scene)
{
    if (scene->clip < 0) return 0.0;
    const skv_clip *c = &scene->model->clips[scene->clip];
    return c->duration_ticks / c->ticks_per_second;
}
